"""Settings for the whole suite."""

from hypothesis import settings

# Tests assert behaviour, never speed (speed is the benchmarks' job): no per-example deadline,
# which a loaded machine misses now and then and reports as a failure of the rules.
settings.register_profile("referee", deadline=None)
settings.load_profile("referee")

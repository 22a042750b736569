"""The clients of other languages, built and tested by their own tools from the test suite."""

"""Checks of the compiled build: what setup.py compiles, and that the tests run what it built."""

"""kobrowser benchmarks; run them with ``python -m benchmarks`` (see ``__main__``)."""

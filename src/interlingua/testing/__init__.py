"""Testing kit for interlingua users: hypothesis strategies (and, later, a conformance suite and pytest plugin)."""

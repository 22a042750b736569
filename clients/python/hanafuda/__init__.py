"""Generated Python bindings of the hanafuda referee API (package ``hanafuda.v1``)."""

"""CFR-family rules, the vector-form kernels and the engine that runs them."""

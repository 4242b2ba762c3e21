"""Card-free bet trees: size syntax and the betting tree builder."""

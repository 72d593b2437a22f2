"""hero."""

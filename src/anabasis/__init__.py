"""anabasis."""

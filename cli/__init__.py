"""The `xenophon` command."""

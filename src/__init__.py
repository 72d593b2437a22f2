"""xenophon: a strong AI opponent, move adviser and benchmark tool for
card games with hidden hands; each game is a plugin in its own folders
(`xenophon.kernel.plugin` lists them)."""

__version__ = "0.1.0"

"""xenophon: a strong AI opponent, move adviser and benchmark tool for two
card games with hidden hands, *Anabasis* and *A Hero incarnation*."""

__version__ = "0.1.0"

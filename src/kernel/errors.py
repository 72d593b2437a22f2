"""The project's exceptions. Each carries a message a player can act on."""


class XenophonError(Exception):
    """Base class of every error xenophon raises on purpose."""


class NotationError(XenophonError, ValueError):
    """A move written in a form the game's notation does not know."""


class IllegalMoveError(XenophonError, ValueError):
    """A well-formed move that is not legal in the current position."""


class CardFileError(XenophonError, ValueError):
    """A card or deck file that cannot be used; the message names the file and the card."""

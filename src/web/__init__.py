"""`xenophon serve`: the browser front end (docs/web.md).

The page is static files (`static/`); the server (`server.py`, aiohttp) owns
one game or review per WebSocket. Every rule, move text and view comes from
the `Game`/`State` API, the records module and the shared session
(xenophon.play.session); this package only draws and relays them."""

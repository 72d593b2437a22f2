// xenophon serve: the page. It draws what the server sends (the human seat's
// view only) and sends back requests; every rule stays on the server. The
// games come from the server's first message; each game's board is drawn by
// its own code, served from the game's folder (/games/GAME/board.js and
// board.css), which registers itself with registerBoard (below).
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
const params = new URLSearchParams(location.search);
const AI_DELAY = Number(params.get("delay") ?? 600);   // ms between the AI's moves

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const pct = (p) => (p === null || p === undefined) ? "" : `${Math.round(p * 100)}%`;
const multiset = (ms) => Object.entries(ms || {}).flatMap(([name, n]) => Array(n).fill(name));
const countText = (ms) => Object.entries(ms || {}).map(([n, k]) => k > 1 ? `${n} x${k}` : n).join(", ") || "-";
const cardsText = (n) => `${n} card${n === 1 ? "" : "s"}`;
const sum = (ms) => Object.values(ms || {}).reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------- the games' boards
// A game's board module calls registerBoard(name, { draw(view, seat, { cards,
// options }) -> the board's element, details(card name, cards) -> the parts of
// its details box, moveExample: the move box's placeholder, verbs: { a move's
// first word: how the status line says it }, and optionally note(move text) ->
// what a move's button adds to its text (a word on what it costs), or null }).
const BOARDS = {};
function registerBoard(name, board) { BOARDS[name] = board; }
// what a board module may use of the page
window.xenophonPage = { registerBoard, el, pct, multiset, countText, cardsText, sum, cardAttrs,
                        svg, cardFace, faceText };

// loads each game's board code and style (missing ones leave the game unable to draw)
function loadBoards(games) {
  const loaded = (node) => new Promise((resolve) => {
    node.onload = node.onerror = resolve;
    document.head.append(node);
  });
  return Promise.all(games.flatMap((game) => [
    loaded(el("link", { rel: "stylesheet", href: `${game.code}board.css` })),
    loaded(el("script", { src: `${game.code}board.js` })),
  ]));
}

// ---------------------------------------------------------------- the socket
const app = { game: null, seat: 0, cards: null, legal: [], selection: [], busy: false,
              queue: [], review: null, socket: null, waiting: 0 };
window.xenophon = app;                 // for tests and the curious

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  socket.onopen = () => { $("#connection").textContent = "connected"; };
  socket.onclose = () => { $("#connection").textContent = "disconnected (reload the page)"; document.body.dataset.connected = "no"; };
  socket.onmessage = (event) => { app.queue.push(JSON.parse(event.data)); pump(); };
  app.socket = socket;
}
function request(message) {
  app.socket.send(JSON.stringify(message));
}

let pumping = false;
async function pump() {
  if (pumping) return;
  pumping = true;
  while (app.queue.length) {
    const message = app.queue.shift();
    const wait = handle(message);
    if (wait instanceof Promise) await wait;
    else if (wait) await pause(wait);
  }
  pumping = false;
}
// a pause between the AI's moves, which the player may cut short (Skip, or
// Escape): the rest of the AI's turn is then shown at once
function pause(ms) {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); app.wake = null; resolve(); };
    const timer = setTimeout(done, ms);
    app.wake = done;
  });
}
function skipAi() {
  app.skipping = true;
  $("#skip").classList.add("hidden");
  if (app.wake) app.wake();
}

function handle(message) {
  const handler = HANDLERS[message.type];
  return handler ? handler(message) : 0;
}

function setState(state) { document.body.dataset.state = state; }
function say(text, ok = false) { const m = $("#message"); m.textContent = text || ""; m.classList.toggle("ok", ok); }

const HANDLERS = {
  hello(m) {                 // the games and levels the package offers
    const form = $("#new-game");
    const options = (values) => values.map((v) => el("option", { value: v }, v));
    form.game.replaceChildren(...m.games.map((game) => el("option", { value: game.name }, game.title)));
    $("#rules-form").game.replaceChildren(...m.games.map((game) => el("option", { value: game.name }, game.title)));
    $("#game-choice").after(...m.games.flatMap(gameControls));
    form.level.replaceChildren(...options(m.levels));
    form.level.value = m.default_level;
    $("#review-form").iterations.value = m.review_iterations;
    app.maxMessage = m.max_message_bytes;
    showGameOptions();
    return loadBoards(m.games).then(() => {
      showGameOptions();
      document.body.dataset.connected = "yes";
    });
  },
  setup(m) {
    app.before = null;
    app.game = m.game; app.seat = m.seat; app.cards = m.cards; app.view = null; app.options = m.options;
    app.lastMove = null; app.aiShown = []; app.inspect = null; app.reach = {}; app.skipping = false; app.aiRun = 0;
    $("#move-text").placeholder = BOARDS[m.game]?.moveExample || "type a move";
    $("#log").replaceChildren(); $("#analysis").replaceChildren();
    const where = m.resumed ? `Saved back to ${m.save_path} as you play.`
      : `Saved to ${m.save_path} once you have moved (a page closed before that leaves no file).`;
    say([m.note, where].filter(Boolean).join(" "), !m.note);   // a changed level's note is a warning
    $("#status").textContent = `${m.game}: you are seat ${m.seat} (${m.seat === 0 ? "first" : "second"} to move), the AI plays at level ${m.level}`;
    setState("thinking");
    return 0;
  },
  chance(m) { return 0; },   // told in words, folded, by the story of the next position
  thinking(m) { $("#thinking").textContent = "AI thinking…"; return 0; },
  waiting(m) {               // every search thread of the server is busy
    $("#thinking").textContent = `waiting for the server's search threads` + (m.ahead ? ` (${m.ahead} searches before this one)…` : "…");
    return 0;
  },
  // each of the AI's moves is drawn, said and marked on its own, AI_DELAY
  // apart (the page's pace, skippable), however fast the server sent them
  ai_move(m) {
    $("#thinking").textContent = "";
    app.aiShown.push({ text: m.text, at: performance.now() });
    for (const line of m.lines) addLog("ai", line, m.text);
    app.aiRun = (app.aiRun || 0) + 1;   // the AI's moves since yours, counted on the status line
    $("#status").textContent = `The AI's move ${app.aiRun}: ` + (m.lines.length ? m.lines.join("; ") : describe(m.text));
    app.lastMove = { anchors: m.anchors || [], by: "ai" };
    app.reach = m.reach || {};
    drawPlay(m.view, [], m.labels);
    if (app.skipping || !AI_DELAY) return 0;
    $("#skip").classList.remove("hidden");
    return AI_DELAY;
  },
  played(m) {
    addLog("you", `you: ${m.text}`); clearAnalysis();
    app.lastMove = { anchors: m.anchors || [], by: "you" }; app.aiRun = 0;
    return 0;
  },
  position(m) {
    app.legal = m.legal; app.selection = []; app.inspect = null; app.reach = m.reach || {};
    app.skipping = false; $("#skip").classList.add("hidden");
    rebuildLog(m.story);
    drawPlay(m.view, m.legal, m.labels);
    $("#undo").disabled = !m.can_undo;
    if (m.to_move === "human") {
      $("#status").textContent = `Your move, turn ${m.view.turn}. ${m.asking}`;
      setState("your-move");
    } else if (m.to_move === "over") setState("over");
    showChoices();
    return 0;
  },
  analysis(m) { showAnalysis(m); if (m.final) setState("your-move"); return 0; },
  over(m) {
    $("#status").textContent = m.text;
    say(m.path ? `Game record saved to ${m.path}` : m.error, !!m.path);
    setState("over");
    return 0;
  },
  saved(m) {                 // a warning: written unsealed, as the last resort
    const where = `${m.left ? "The last game was saved" : "Saved"} to ${m.path}`;
    say(m.warning ? `${where}: ${m.warning}` : where, !m.warning); app.savedPath = m.path; return 0;
  },
  error(m) {
    say(m.message);
    if (document.body.dataset.state === "thinking" && app.lastLegal?.length) {
      app.legal = app.lastLegal; app.lastLegal = null; setState("your-move"); refreshSelection();
    } else if (document.body.dataset.state === "thinking" && app.before) {
      setState(app.before); app.before = null;   // a new game or resume refused: the page goes on as it was
    }
    if (document.body.dataset.state === "loading") {   // the review asked for: said in its tab
      reviewStatus(m.message, true);
      setState("idle");
    }
    return 0;
  },
  review(m) { startReview(m); return 0; },
  rules(m) {                 // the game's rules, as `xenophon rules GAME` prints them
    $("#rules-text").textContent = m.lines.join("\n");
    $("#rules-text").dataset.game = m.game;
    return 0;
  },
  review_point(m) { app.review.points.push(m); drawCurve(); return 0; },
  review_done() { app.review.done = true; drawCurve(); setState("reviewed"); return 0; },
};

// ---------------------------------------------------------------- the log
// the story: what happened in words (the narrator's, as in the terminal), a
// heading at each turn; a move's lines carry its notation as their title
function logLine(kind, text, move) {
  return el("li", { class: kind, title: move || null }, text);
}
function addLog(kind, text, move) {
  const list = $("#log");
  list.append(logLine(kind, text, move));
  list.scrollTop = list.scrollHeight;
}
function rebuildLog(story) {
  const list = $("#log");
  const items = [];
  let turn = null;
  for (const entry of story) {
    if (entry.turn !== turn) {
      turn = entry.turn;
      items.push(el("li", { class: "turn", "data-turn": turn }, `Turn ${turn}`));
    }
    items.push(logLine(entry.kind, entry.text, entry.move));
  }
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
}
function describe(text) {
  const [verb, ...rest] = text.split(" ");
  const verbs = BOARDS[app.game]?.verbs || {};
  return `${verbs[verb] || verb} ${rest.join(" ")}`.trim();
}

// ---------------------------------------------------------------- drawing
// `labels`: the names the board shows on its pieces, by anchor (the notation's)
function drawPlay(view, legal, labels) {
  app.view = view;
  const area = $("#play-board");
  area.replaceChildren(drawBoard(app.game, view, app.seat, { cards: app.cards, options: app.options, labels }));
  markLastMove(area, app.lastMove);
  markSelectable(area, legal);
}
// the last move's pieces and squares (the AI's or yours), until the next move
function markLastMove(area, last) {
  for (const anchor of last?.anchors || [])
    $$(`[data-anchor="${CSS.escape(anchor)}"]`, area).forEach((node) => node.classList.add("last-move", `last-${last.by}`));
}
// where the selected piece can move and attack (the server's `reach`, by
// anchor: its patterns laid on the board, as the terminal's `card SQUARE`)
function markReach(area, reach, anchor) {
  $$(".reach-move, .reach-attack, .reach-from", area).forEach((node) => node.classList.remove("reach-move", "reach-attack", "reach-from"));
  const squares = anchor && reach ? reach[anchor] : null;
  if (!squares) return;
  for (const [kind, anchors] of Object.entries(squares))
    for (const target of anchors)
      $$(`[data-anchor="${CSS.escape(target)}"]`, area).forEach((node) => node.classList.add(`reach-${kind}`));
  $$(`[data-anchor="${CSS.escape(anchor)}"]`, area).forEach((node) => node.classList.add("reach-from"));
}

// a board by its game's module, with the card data and options it is drawn with
function drawBoard(game, view, seat, context) {
  const board = BOARDS[game];
  if (!board) return el("div", { class: "panel" }, `the page has no board for ${game} (reload the page)`);
  return board.draw(view, seat, context);
}

function cardAttrs(name, anchor) {
  return { "data-card": name, "data-anchor": anchor };
}

// ---------------------------------------------------------------- cards drawn (SVG)
// a board draws its cards with these: no image files, only shapes and text
const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs))
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
// text that fits `width`: squeezed (never cut) when it is longer
function faceText(text, x, y, width, attrs = {}) {
  const node = svg("text", { x, y, ...attrs }, text);
  const size = Number(attrs["font-size"] || 10);
  const em = attrs["font-weight"] ? 0.64 : 0.56;   // a character's width, about, in its font's size
  if (String(text).length * size * em > width) {
    node.setAttribute("textLength", width);
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}
// a card's face: its frame in `colour`, its name along the top, its `cost`
// in a gold disc, `art` (SVG nodes drawn in a 100 x 64 box, the card's
// middle), and `stats` (a line at its foot); `count` in a corner when the
// hand holds more than one
function cardFace({ name, cost, colour, art = [], stats = "", count = 1, width = 96, height = 128, light = "#fffaf0" }) {
  const face = svg("svg", { class: "card-face", width, height, viewBox: "0 0 100 134", role: "img", "aria-label": name });
  face.append(
    svg("rect", { x: 1, y: 1, width: 98, height: 132, rx: 8, fill: light, stroke: colour, "stroke-width": 2 }),
    svg("path", { d: "M1 9 a8 8 0 0 1 8 -8 h82 a8 8 0 0 1 8 8 v17 h-98 z", fill: colour }),
    faceText(name, cost === null || cost === undefined ? 7 : 24, 18, cost === null || cost === undefined ? 86 : 70,
             { class: "face-name", fill: "#fff", "font-size": 11, "font-weight": 700 }),
    svg("g", { transform: "translate(0 32)" }, art),
    svg("line", { x1: 8, x2: 92, y1: 108, y2: 108, stroke: colour, "stroke-opacity": 0.35 }),
    faceText(stats, 50, 124, 88, { class: "face-stats", "text-anchor": "middle", "font-size": 11, fill: "#222" }));
  if (cost !== null && cost !== undefined)
    face.append(svg("circle", { cx: 12, cy: 13, r: 9, fill: "#f2c94c", stroke: "#8a6d1a" }),
      svg("text", { class: "face-cost", x: 12, y: 17, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#3b2f0b" }, cost));
  if (count > 1)   // how many the hand holds, at the foot's right
    face.append(svg("rect", { x: 74, y: 86, width: 22, height: 16, rx: 8, fill: "#222" }),
      svg("text", { x: 85, y: 98, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff", class: "face-count" }, `x${count}`));
  return face;
}

// ---------------------------------------------------------------- card details
// a card of the play board is the game's, one of the review board the reviewed game's
function detailsOf(target) {
  const reviewed = target.closest("#review-board") || (!app.game && app.review);
  const game = reviewed ? app.review?.game : app.game;
  const cards = reviewed ? app.review?.cards : app.cards;
  if (!game || !cards) return null;
  const name = target.dataset.card;
  return BOARDS[game] ? BOARDS[game].details(name, cards) : [el("h4", {}, name)];
}

function showDetails(target, x, y) {
  const box = $("#details");
  const parts = detailsOf(target);
  if (!parts) return;
  box.replaceChildren(...parts.filter(Boolean));
  box.classList.remove("hidden");
  // a piece of a board: the box beside the board, level with the piece, so
  // that it hides none of the squares its reach or its targets mark
  const board = target.closest(".board-area")?.getBoundingClientRect();
  const beside = board && board.right + 8 + box.offsetWidth <= innerWidth;
  const top = beside ? target.getBoundingClientRect().top : y + 14;
  box.style.left = `${beside ? board.right + 8 : Math.min(x + 14, innerWidth - 320)}px`;
  box.style.top = `${Math.max(0, Math.min(top, innerHeight - box.offsetHeight - 8))}px`;
}
// a tap shows the card too (touch screens have no hover)
document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-card]");
  if (target && target.dataset.card) showDetails(target, event.clientX, event.clientY);
});
document.addEventListener("mouseover", (event) => {
  const target = event.target.closest("[data-card]");
  if (target && target.dataset.card) showDetails(target, event.clientX, event.clientY);
  else $("#details").classList.add("hidden");
});

// ---------------------------------------------------------------- clicking moves
function candidates(selection) {
  return app.legal.filter((m) => selection.every((a, i) => m.anchors[i] === a));
}
function markSelectable(area, legal) {
  markReach(area, app.reach, app.selection.find((anchor) => app.reach?.[anchor]) || app.inspect);
  $$(".selectable, .selected, .target", area).forEach((n) => n.classList.remove("selectable", "selected", "target"));
  const next = new Set(candidates(app.selection).map((m) => m.anchors[app.selection.length]).filter(Boolean));
  for (const node of $$("[data-anchor]", area)) {
    const anchor = node.dataset.anchor;
    if (app.selection.includes(anchor)) node.classList.add("selected");
    else if (next.has(anchor)) node.classList.add(app.selection.length ? "target" : "selectable");
  }
}
function showChoices() {
  const box = $("#choices");
  const moves = app.selection.length
    ? candidates(app.selection).filter((m) => m.anchors.length === app.selection.length || candidates(app.selection).length <= 12)
    : app.legal.filter((m) => m.anchors.length === 0);
  box.replaceChildren(...moves.map(choiceButton));
  if (app.selection.length) box.append(el("button", { class: "cancel", onclick: () => { app.selection = []; app.inspect = null; refreshSelection(); } }, "cancel"));
}
// a move's button: its text, and the board's word on what it costs (a discard says so)
function choiceButton(move) {
  const note = BOARDS[app.game]?.note?.(move.text);
  return el("button", { "data-move": move.text, class: note ? "noted" : null, onclick: () => play(move.text) },
    move.text, note ? el("span", { class: "note" }, ` (${note})`) : null);
}
function refreshSelection() { markSelectable($("#play-board"), app.legal); showChoices(); }
function clickAnchor(anchor) {
  // any piece with a reach shows it when clicked, the opponent's too, and in the AI's turn
  app.inspect = app.reach?.[anchor] && app.inspect !== anchor ? anchor : null;
  if (document.body.dataset.state !== "your-move") { markReach($("#play-board"), app.reach, app.inspect); return; }
  let selection = [...app.selection, anchor];
  if (!candidates(selection).length) selection = [anchor];
  const found = candidates(selection);
  if (!found.length) { app.selection = []; refreshSelection(); return; }
  // a move is played by a click on its target, never by the first click: that
  // one selects (a card, a unit), and a move it completes is a button
  const exact = found.filter((m) => m.anchors.length === selection.length);
  if (selection.length > 1 && found.length === 1 && exact.length === 1) { play(exact[0].text); return; }
  app.selection = selection;
  refreshSelection();
}
$("#play-board").addEventListener("click", (event) => {
  // a unit inside a row: the row when the move under way needs a row, else the unit
  const anchors = [];
  for (let node = event.target.closest("[data-anchor]"); node; node = node.parentElement?.closest("[data-anchor]"))
    anchors.push(node.dataset.anchor);
  if (!anchors.length) return;
  const fits = anchors.find((a) => candidates([...app.selection, a]).length);
  clickAnchor(fits || anchors[0]);
});
function play(text) {
  app.movesSent = (app.movesSent || 0) + 1;
  app.lastLegal = app.legal;
  app.selection = []; app.legal = [];
  setState("thinking");
  say("");
  request({ type: "move", move: text });
}

// ---------------------------------------------------------------- hints
function clearAnalysis() {
  $("#analysis").replaceChildren();
  $$(".hint1, .hint2, .hint3").forEach((n) => n.classList.remove("hint1", "hint2", "hint3"));
  $$(".badge").forEach((n) => n.remove());
  $$("svg.arrows").forEach((n) => n.remove());
}
// the hints' win probabilities with as many decimals as tell the top moves
// apart (at most 2); the moves are in the search's order, by visits
function winDigits(moves) {
  for (let digits = 0; digits < 2; digits++) {
    const shown = moves.slice(0, 3).map((move) => (move.win * 100).toFixed(digits));
    if (new Set(shown).size === shown.length) return digits;
  }
  return 2;
}
const pctFine = (p, digits) => `${(p * 100).toFixed(digits)}%`;
function showAnalysis(m) {
  app.analysis = m;
  clearAnalysis();
  if (m.final && !m.iterations && m.moves.length === 1) {
    // one legal move: nothing was searched, so no win probability to show
    $("#thinking").textContent = "";
    $("#analysis").append(el("li", { "data-move": m.moves[0].text }, `only move: ${m.moves[0].text}`));
    return;
  }
  $("#thinking").textContent = m.final ? `${m.iterations} iterations` : `searching… ${m.iterations} iterations`;
  const area = $("#play-board");
  const digits = winDigits(m.moves);
  m.moves.forEach((move, i) => {
    $("#analysis").append(el("li", { "data-move": move.text },
      `${move.text}  win ${pctFine(move.win, digits)} (${move.visits} visits)`, move.line.length ? `  then ${move.line.join(", ")}` : ""));
    if (i >= 3) return;
    const button = $(`#choices [data-move="${CSS.escape(move.text)}"]`);
    if (!move.anchors.length && button) button.classList.add(`hint${i + 1}`);
    for (const anchor of move.anchors) {
      const node = $(`[data-anchor="${CSS.escape(anchor)}"]`, area);
      if (!node || /\bhint\d\b/.test(node.className)) continue;    // a better move marked it
      node.classList.add(`hint${i + 1}`);
      if (getComputedStyle(node).position === "static") node.style.position = "relative";
      node.append(el("span", { class: "badge" }, `${i + 1}: ${pctFine(move.win, digits)}`));
    }
    drawArrow(area, move.anchors, i + 1);
  });
  const top = m.moves.slice(0, 3).map((move) => pctFine(move.win, digits));
  $("#analysis").append(el("li", { class: "why" },
    "Sorted by visits: the search spends them on the moves that do best, and plays the most visited. " +
    (new Set(top).size < top.length ? "Moves with the same win probability are told apart by their visits."
      : digits ? `Shown to ${digits} decimal${digits > 1 ? "s" : ""}: the top moves differ by less than 1%.` : "")));
}
// where an arrow from box `from` to box `to` starts and ends, in `area`'s
// coordinates: on their borders, along the line between their centres, so
// neither end lies over the text inside a square or tile (the boards lift
// their cards' text over the arrows, at z-index 2, where a line crosses
// them); between neighbours, at least ARROW_MIN long, its start drawn back
// into `from`
const ARROW_MIN = 22;
function arrowEnds(area, from, to) {
  const centre = (r) => [r.left + r.width / 2 - area.left, r.top + r.height / 2 - area.top];
  const [c1, c2] = [centre(from), centre(to)];
  const length = Math.hypot(c2[0] - c1[0], c2[1] - c1[1]) || 1;
  const [dx, dy] = [(c2[0] - c1[0]) / length, (c2[1] - c1[1]) / length];
  // how far from its centre the line leaves a box of half-sizes w, h
  const border = (r) => Math.min(Math.abs(dx) > 1e-9 ? r.width / 2 / Math.abs(dx) : Infinity,
    Math.abs(dy) > 1e-9 ? r.height / 2 / Math.abs(dy) : Infinity);
  const end = length - border(to);
  const start = Math.max(0, Math.min(border(from), end - ARROW_MIN));
  return [[c1[0] + dx * start, c1[1] + dy * start], [c1[0] + dx * end, c1[1] + dy * end]];
}
// an arrow from a piece to its target, for moves on the board only (a square,
// a unit, an avatar): a card from the hand or the market is marked, not
// pointed from, so no arrow crosses the hand or the event slots
const ARROW_ENDS = ["sq:", "unit:", "avatar:"];
function drawArrow(area, anchors, rank) {
  const ends = anchors.slice(-2);
  if (ends.length < 2 || !ends.every((a) => ARROW_ENDS.some((kind) => a.startsWith(kind)))) return;
  const [a, b] = ends.map((s) => $(`[data-anchor="${CSS.escape(s)}"]`, area));
  if (!a || !b) return;
  const box = area.getBoundingClientRect();
  const [[x1, y1], [x2, y2]] = arrowEnds(box, a.getBoundingClientRect(), b.getBoundingClientRect());
  const colour = getComputedStyle(document.documentElement).getPropertyValue(`--hint${rank}`).trim();
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "arrows");
  svg.setAttribute("data-from", ends[0]); svg.setAttribute("data-to", ends[1]);
  svg.setAttribute("width", box.width); svg.setAttribute("height", box.height);
  svg.innerHTML = `<defs><marker id="head${rank}" markerUnits="userSpaceOnUse" markerWidth="14" markerHeight="14" refX="12" refY="7" orient="auto"><path d="M0,0 L14,7 L0,14 z" fill="${colour}"/></marker></defs>` +
    `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${colour}" stroke-width="4" stroke-opacity=".8" marker-end="url(#head${rank})"/>`;
  area.append(svg);
}

// ---------------------------------------------------------------- review
function reviewStatus(text, error = false) {
  const status = $("#review-status");
  status.textContent = text;
  status.classList.toggle("error", error);
}
// a record's result (the seats' returns) in words
function outcome(result) {
  if (!result) return "not finished";
  return result[0] === result[1] ? "a draw" : `seat ${result[0] > result[1] ? 0 : 1} won`;
}
function startReview(m) {
  app.review = { ...m, index: 0, points: [], done: false };
  const where = m.redacted ? `redacted for seat ${m.seat}` : `full record, seen as seat ${m.seat}`;
  reviewStatus(`${m.game}: ${m.lines.length} lines, ${where}, ${outcome(m.result)}`);
  $("#review-same").replaceChildren(`A mistake: a drop above ${pct(m.threshold)} plus its 95% interval, the move played and the better one each searched with ${m.iterations} iterations. `,
    "The terminal finds the same with ", el("code", {}, m.command),
    " (the same search and seed; another budget or seat gives other values).");
  $("#review-lines").replaceChildren(...m.lines.map((line, i) => el("li", { "data-index": i + 1, onclick: () => reviewGo(i + 1) },
    `${line.seat === "chance" ? "chance" : "seat " + line.seat}: ${line.text}`)));
  setState("reviewing");
  reviewGo(m.lines.length);
  drawCurve();
}
function reviewGo(index) {
  const r = app.review;
  if (!r) return;
  r.index = Math.max(0, Math.min(r.lines.length, index));
  const view = r.index === 0 ? r.start : r.positions[r.index - 1];
  const labels = r.labels[r.index];   // the pieces' names at this position, as the play tab's
  const area = $("#review-board");
  area.replaceChildren(drawBoard(r.game, view, r.seat, { cards: r.cards, options: r.options, labels }));
  r.inspect = null;                   // a new position: nothing selected on it
  $("#review-where").textContent = `${r.index} / ${r.lines.length}`;
  $$("#review-lines li").forEach((li) => li.classList.toggle("current", Number(li.dataset.index) === r.index));
  const current = $(`#review-lines li[data-index="${r.index}"]`);
  if (current) current.scrollIntoView({ block: "nearest" });
  drawCurve();
}
// the curve of the reviewed seat's win probability before each decision, with
// its axes: the % scale on the left, the turns below (as the terminal's picture)
const CURVE = { width: 460, height: 210, left: 44, right: 10, top: 10, bottom: 34 };
function turnTicks(points, most = 8) {
  const firsts = points.map((p, i) => [i, p.turn]).filter(([i, turn]) => i === 0 || points[i - 1].turn !== turn);
  const step = Math.ceil(firsts.length / most);
  return firsts.filter((_, k) => k % step === 0);
}
function curveAxes(x, y, points) {
  const { width, height, left, right, bottom } = CURVE;
  let axes = `<g class="axis-y">`;
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    axes += `<line x1="${left}" x2="${width - right}" y1="${y(p)}" y2="${y(p)}" stroke="${p === 0.5 ? "#999" : "#e5e5e5"}"${p === 0.5 ? ' stroke-dasharray="4"' : ""}/>`;
    axes += `<text x="${left - 5}" y="${y(p) + 4}" text-anchor="end">${p * 100}%</text>`;
  }
  axes += `</g><g class="axis-x">`;
  for (const [i, turn] of turnTicks(points)) {
    axes += `<line x1="${x(i)}" x2="${x(i)}" y1="${height - bottom}" y2="${height - bottom + 4}" stroke="#555"/>`;
    axes += `<text x="${x(i)}" y="${height - bottom + 15}" text-anchor="middle">${turn}</text>`;
  }
  axes += `</g><line x1="${left}" x2="${left}" y1="${CURVE.top}" y2="${height - bottom}" stroke="#555"/>`;
  axes += `<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#555"/>`;
  axes += `<text class="axis-title" x="${(left + width - right) / 2}" y="${height - 3}" text-anchor="middle">turn</text>`;
  axes += `<text class="axis-title" x="11" y="${(CURVE.top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 11 ${(CURVE.top + height - bottom) / 2})">win probability</text>`;
  return axes;
}
function drawCurve() {
  const r = app.review;
  if (!r) return;
  const { width, height, left, right, top, bottom } = CURVE, n = Math.max(1, r.points.length - 1);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width); svg.setAttribute("height", height);
  const x = (i) => left + 6 + i * (width - left - right - 12) / n, y = (p) => height - bottom - p * (height - top - bottom);
  let inner = curveAxes(x, y, r.points);
  inner += `<polyline fill="none" stroke="#1f5fbf" stroke-width="2" points="${r.points.map((p, i) => `${x(i)},${y(p.win)}`).join(" ")}"/>`;
  svg.innerHTML = inner;
  r.points.forEach((p, i) => {
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x(i)); dot.setAttribute("cy", y(p.win));
    dot.setAttribute("r", p.mistake ? 6 : 3.5);
    dot.setAttribute("fill", p.mistake ? "#b3261e" : (p.index + 1 === r.index || p.index === r.index) ? "#222" : "#1f5fbf");
    dot.setAttribute("data-index", p.index);
    dot.setAttribute("class", p.mistake ? "point mistake" : "point");
    const title = document.createElementNS(ns, "title");
    title.textContent = `turn ${p.turn}: ${p.played} (win ${pct(p.win)})` + (p.mistake ? `, better: ${p.better}` : "");
    dot.append(title);
    dot.addEventListener("click", () => reviewGo(p.index));
    svg.append(dot);
  });
  const label = r.done ? `seat ${r.seat}'s win probability before each decision (${r.iterations} iterations each)`
    : `reviewing… ${r.points.length} decisions`;
  $("#curve").replaceChildren(el("div", { class: "legend" }, label), svg);
  $("#mistakes").replaceChildren(...r.points.filter((p) => p.mistake).map((p) =>
    el("li", { onclick: () => reviewGo(p.index) }, `turn ${p.turn}: ${p.played} (${pct(p.played_win)}), better: ${p.better} (${pct(p.win)}), drop ${pct(p.win - p.played_win)} ± ${pct(p.margin)}`)));
}
// a click on a piece of the reviewed board shows its reach, as on the play tab
$("#review-board").addEventListener("click", (event) => {
  const r = app.review, node = event.target.closest("[data-anchor]");
  if (!r || !node) return;
  const reach = r.reach?.[r.index];
  r.inspect = reach?.[node.dataset.anchor] && r.inspect !== node.dataset.anchor ? node.dataset.anchor : null;
  markReach($("#review-board"), reach, r.inspect);
});
$("#first").onclick = () => reviewGo(0);
$("#prev").onclick = () => reviewGo((app.review?.index || 0) - 1);
$("#next").onclick = () => reviewGo((app.review?.index || 0) + 1);
$("#last").onclick = () => reviewGo(app.review ? app.review.lines.length : 0);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("#skip").classList.contains("hidden")) skipAi();
  if (!app.review || $("#tab-review").classList.contains("hidden") || event.target.tagName === "INPUT") return;
  if (event.key === "ArrowLeft") reviewGo(app.review.index - 1);
  if (event.key === "ArrowRight") reviewGo(app.review.index + 1);
});
$("#review-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const message = { type: "review", seat: form.seat.value, iterations: form.iterations.value };
  const file = form.file.files[0];
  if (file) { message.text = await file.text(); message.name = file.name; }
  else message.path = form.path.value.trim();
  const size = new Blob([JSON.stringify(message)]).size;
  if (app.maxMessage && size > app.maxMessage) {
    say(`${file.name} is too large to upload (${(size / 2 ** 20).toFixed(1)} MiB; at most ${app.maxMessage / 2 ** 20} MiB): give its path instead`);
    return;
  }
  setState("loading");
  reviewStatus("loading…");
  request(message);
});

// ---------------------------------------------------------------- the forms
// a game's controls of its options, as its plugin declares them: a select of
// choices, or text fields (joined by the separator) suggesting names
function gameControls(game) {
  return game.controls.map((control) => {
    const label = el("label", { "data-game": game.name, "data-option": control.option, "data-separator": control.separator },
      `${control.label} `);
    if (control.choices.length) {
      const select = el("select", { name: `${game.name}.${control.option}` },
        control.choices.map((choice) => el("option", { value: choice }, choice)));
      select.value = control.defaults[0];
      label.append(select);
      return label;
    }
    control.defaults.forEach((value, i) => {
      const name = `${game.name}.${control.option}.${i}`;
      const field = control.suggestions.length ? namedField(name, value, control.suggestions, control.sizes[i])
        : el("input", { name, value, size: control.sizes[i] || null });
      label.append(...(i ? [" ", field] : [field]));
    });
    return label;
  });
}
// a field whose value is one of `names` (a select) or, with "file…" chosen,
// the text typed beside it (a deck file's path)
const OTHER = "file…";
function namedField(name, value, names, size) {
  const known = names.includes(value);
  const select = el("select", { name }, names.map((n) => el("option", { value: n }, n)), el("option", { value: OTHER }, OTHER));
  const input = el("input", { name: `${name}.path`, value: known ? "" : value, size: size || null,
                              placeholder: "path of a deck file", class: known ? "hidden" : null });
  select.value = known ? value : OTHER;
  select.addEventListener("change", () => { input.classList.toggle("hidden", select.value !== OTHER); if (select.value === OTHER) input.focus(); });
  return el("span", { class: "field", "data-field": name }, select, input);
}
// a control's field value: a named field's choice or its typed path, or the text typed
function fieldValue(node) {
  if (!node.matches(".field")) return node.value.trim();
  const select = $("select", node);
  return select.value === OTHER ? $("input", node).value.trim() : select.value;
}
function showGameOptions() {
  const game = $("#new-game").game.value;
  $$("#new-game label[data-game]").forEach((label) => label.classList.toggle("hidden", label.dataset.game !== game));
  $("#move-text").placeholder = BOARDS[game]?.moveExample || "type a move";
}
// the selected game's options, as the new-game request carries them
function gameOptions(game) {
  const options = {};
  for (const label of $$(`#new-game label[data-game="${CSS.escape(game)}"]`)) {
    const values = $$(":scope > select, :scope > input, :scope > .field", label).map(fieldValue);
    options[label.dataset.option] = values.join(label.dataset.separator);
  }
  return options;
}
$("#new-game").game.addEventListener("change", showGameOptions);
$("#new-game").addEventListener("submit", (event) => {
  event.preventDefault();
  const f = event.target;
  const options = gameOptions(f.game.value);
  const message = { type: "new", game: f.game.value, seat: f.seat.value, level: f.level.value, seed: f.seed.value.trim(), ...options };
  app.options = options;
  app.before = document.body.dataset.state;
  setState("thinking");
  request(message);
});
$("#resume-game").onclick = () => {
  app.before = document.body.dataset.state;
  setState("thinking");
  request({ type: "resume", path: $("#new-game").resume.value.trim(), level: "" });
};
$("#typed").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("#move-text").value.trim();
  if (!text) return;
  $("#move-text").value = "";
  play(text);
});
$("#hint").onclick = () => {
  if (document.body.dataset.state !== "your-move") return;
  app.lastLegal = app.legal;
  setState("thinking");
  request({ type: "hint" });
};
$("#undo").onclick = () => { app.lastMove = null; request({ type: "undo" }); };   // the move marked is taken back
$("#skip").onclick = skipAi;
$("#save").onclick = () => request({ type: "save", path: $("#save-path").value.trim() });
for (const tab of $$(".tab")) {
  tab.onclick = () => {
    $$(".tab").forEach((t) => t.classList.toggle("active", t === tab));
    $$(".tabpane").forEach((p) => p.classList.toggle("hidden", p.id !== `tab-${tab.dataset.tab}`));
    if (tab.dataset.tab === "rules") askRules(app.game || $("#new-game").game.value);
  };
}
// the rules of a game (the one in play, or the one chosen in the new-game form)
function askRules(game) {
  const select = $("#rules-form").game;
  if (game) select.value = game;
  if ($("#rules-text").dataset.game !== select.value) request({ type: "rules", game: select.value });
}
$("#rules-form").game.addEventListener("change", () => askRules(null));
showGameOptions();
connect();

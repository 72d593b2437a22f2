// Anabasis on the page of `xenophon serve` (src/web/static/app.js loads this
// file from /games/anabasis/board.js): the board from a seat's side, the card
// details, and the words of its moves. It draws what the server sends (the
// seat's view and the public card data) and decides nothing.
"use strict";
(() => {
  const { registerBoard, el, handChips, cardAttrs, countText, cardsText } = window.xenophonPage;
  const FILES = "abcdefg";
  const CASTLES = { d1: 0, d6: 1 };

  // the grid from the seat's side, both players, the market
  function draw(view, seat, context) {
    const files = seat === 0 ? [0, 1, 2, 3, 4, 5, 6] : [6, 5, 4, 3, 2, 1, 0];
    const ranks = seat === 0 ? [6, 5, 4, 3, 2, 1] : [1, 2, 3, 4, 5, 6];
    const cards = context.cards.cards;
    const table = el("table", { class: "grid" });
    table.append(el("tr", {}, el("th"), files.map((f) => el("th", {}, FILES[f]))));
    for (const rank of ranks) {
      const row = el("tr", {}, el("th", { "data-anchor": `rank:${rank}` }, rank));
      for (const f of files) {
        const square = `${FILES[f]}${rank}`;
        const home = rank <= 2 ? 0 : rank >= 5 ? 1 : null;
        const cls = [home === null ? "" : home === seat ? "home-mine" : "home-theirs",
                     square in CASTLES ? "castle" : ""].join(" ");
        const cell = el("td", { class: cls, "data-anchor": `sq:${square}`, "data-square": square });
        const entry = view.grid[square];
        if (square in CASTLES && !entry) {
          const owner = CASTLES[square];
          cell.append(el("div", { class: "castle-label" },
            `castle ${owner === seat ? "(yours)" : "(theirs)"}`, el("br"), `HP ${view.players[owner].castle_hp}`));
        }
        if (entry) cell.append(gridCard(entry, cards[entry.card], seat));
        row.append(cell);
      }
      table.append(row);
    }
    const board = el("div", { class: "anabasis" });
    board.append(player(view, 1 - seat, seat, context), table, player(view, seat, seat, context), market(view));
    if (view.field) board.append(el("div", { class: "panel" }, `Field: `,
      el("span", { class: "chip", "data-card": view.field.active }, view.field.active), ` (${view.field.remaining} left)`));
    return board;
  }

  function gridCard(entry, card, seat) {
    const mine = entry.owner === seat;
    const state = card.kind === "territory" ? (entry.face_down ? "face down" : "territory")
      : entry.moved ? "moved" : entry.ready ? "ready" : "exhausted";
    const hp = card.hp - entry.damage;
    return el("div", { class: `unit ${mine ? "mine" : "theirs"} ${state === "exhausted" ? "exhausted" : ""}`, "data-card": entry.card },
      el("span", { class: "name" }, entry.card),
      `HP ${hp}/${card.hp}` + (entry.damage ? ` (-${entry.damage})` : ""), el("br"),
      state + (entry.atk_bonus ? ` +${entry.atk_bonus} atk` : ""));
  }

  function cemeteryCount(info, cards) {
    return Object.entries(info.cemetery).filter(([name]) => cards.cards[name]?.kind !== "event")
      .reduce((a, [, n]) => a + n, 0);
  }

  function player(view, who, seat, context) {
    const info = view.players[who];
    const mine = who === seat;
    const limit = (context.options?.mode || "standard") === "expert" ? 12 : 8;
    const slots = info.slots.map((slot, i) => {
      const label = slot === null ? "empty" : slot.face_up ? `${slot.card} (spent)` : (slot.card || "face down");
      return el("span", { class: `chip ${slot && !slot.face_up && !slot.card ? "back" : ""}`,
                          "data-anchor": mine ? `slot:${i + 1}` : null, "data-card": slot?.card || null }, `${i + 1}: ${label}`);
    });
    const hand = mine
      ? handChips(info.hand)
      : [el("span", { class: "chip back" }, cardsText(info.hand_size))];
    return el("div", { class: `panel ${mine ? "mine" : "theirs"}`, "data-player": who },
      el("div", { class: "counters" }, el("span", { class: "who" }, mine ? `You (seat ${who})` : `Opponent (seat ${who})`),
        el("span", {}, `castle ${info.castle_hp}`), el("span", {}, `AP ${info.ap}`), el("span", {}, `funds ${info.funds}`),
        el("span", {}, `deck ${info.deck_size}`), el("span", {}, `cemetery ${cemeteryCount(info, context.cards)}/${limit}`)),
      el("div", {}, "hand: ", hand), el("div", {}, "events: ", slots),
      el("div", {}, `flow: ${countText(info.flow)}`));
  }

  function market(view) {
    const tops = view.market.tops.map((name, i) => name
      ? el("span", { class: "chip", ...cardAttrs(name, `market:${name}`) }, `${"ABC"[i]}: ${name}`)
      : el("span", { class: "chip back" }, `${"ABC"[i]}: -`));
    const row = Object.keys(view.market.row).sort().map((name) =>
      el("span", { class: "chip", ...cardAttrs(name, `market:${name}`) },
        view.market.row[name] > 1 ? `${name} x${view.market.row[name]}` : name));
    return el("div", { class: "panel market" }, el("div", {}, "Market: ", tops), el("div", {}, "row: ", row));
  }

  // a character's movement and attack patterns, forward up
  function patternGrid(move, attack, flip) {
    const all = [...move, ...attack, [0, 0]];
    const reach = Math.max(1, ...all.map(([x, y]) => Math.max(Math.abs(x), Math.abs(y))));
    const size = 2 * reach + 1;
    const grid = el("div", { class: "pattern" });
    grid.style.gridTemplateColumns = `repeat(${size}, 14px)`;
    const key = (x, y) => `${x},${y}`;
    const m = new Set(move.map(([x, y]) => key(x, y))), a = new Set(attack.map(([x, y]) => key(x, y)));
    for (let row = reach; row >= -reach; row--) {
      for (let col = -reach; col <= reach; col++) {
        const [x, y] = flip ? [-col, -row] : [col, row];
        const cls = x === 0 && y === 0 ? "c" : (m.has(key(x, y)) ? "m" : "") + (a.has(key(x, y)) ? "a" : "");
        grid.append(el("div", { class: cls }));
      }
    }
    return grid;
  }

  // the details of a card or field card: its text in players' words (the
  // lines of `card NAME`, from the public card data), and a character's
  // movement and attack patterns drawn
  function details(name, cards) {
    const c = (cards.fields && cards.fields[name]) || cards.cards[name];
    if (!c) return [el("h4", {}, name)];
    const [kind, ...lines] = c.text;
    const parts = [el("h4", {}, name), el("div", { class: "legend" }, kind.slice(name.length).trim().replace(/^\(|\)$/g, "")),
      ...lines.map((line) => el("div", { class: "words" }, line))];
    if (c.kind === "character") {
      parts.push(patternGrid(c.move, c.attack, false),
        el("div", { class: "legend" }, `forward ↑ · blue: move (${c.move_name}) · red: attack (${c.attack_name})`));
    }
    return parts;
  }

  registerBoard("anabasis", {
    draw,
    details,
    moveExample: "type a move, e.g. place Militia c2",
    // a move's first word as the status line says it ("AI: buys Farm e2")
    verbs: { move: "moves", attack: "attacks", place: "places", buy: "buys", set: "sets an event",
             end: "ends the phase", pass: "passes", ready: "readies", event: "plays event", evade: "evades" },
  });
})();

// Anabasis on the page of `xenophon serve` (src/web/static/app.js loads this
// file from /games/anabasis/board.js): the board from a seat's side, the card
// details, and the words of its moves. It draws what the server sends (the
// seat's view and the public card data) and decides nothing.
"use strict";
(() => {
  const { registerBoard, el, cardAttrs, countText, cardsText, svg, cardFace, faceText } = window.xenophonPage;
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
        else if (!(square in CASTLES)) cell.append(el("span", { class: "square-name" }, square));
        row.append(cell);
      }
      table.append(row);
    }
    const board = el("div", { class: "anabasis" });
    board.append(player(view, 1 - seat, seat, context), table, player(view, seat, seat, context), market(view, cards));
    if (view.field) board.append(el("div", { class: "panel" }, `Field: `,
      el("span", { class: "chip", "data-card": view.field.active }, view.field.active), ` (${view.field.remaining} left)`));
    return board;
  }

  // the kinds' colours on a card's face
  const KIND_COLOUR = { character: "#3d5a80", territory: "#5b8c3a", event: "#7b4fa0" };
  const MOVE = "#4c9be8", ATTACK = "#c0392b";

  // a pattern as squares around the card (C, dark), in a box of `size`
  // centred on (cx, cy): blue where it moves, red where it attacks, split
  // where both; forward up, or down for the card of the player facing us
  function patternArt(move, attack, cx, cy, size, flip) {
    const all = [...move, ...attack, [0, 0]];
    const reach = Math.max(1, ...all.map(([x, y]) => Math.max(Math.abs(x), Math.abs(y))));
    const n = 2 * reach + 1, cell = size / n;
    const key = (x, y) => `${x},${y}`;
    const m = new Set(move.map(([x, y]) => key(x, y))), a = new Set(attack.map(([x, y]) => key(x, y)));
    const group = svg("g", { class: "pattern-art" });
    for (let row = 0; row < n; row++) {
      for (let col = 0; col < n; col++) {
        const [x, y] = flip ? [reach - col, row - reach] : [col - reach, reach - row];
        const [left, top] = [cx - size / 2 + col * cell, cy - size / 2 + row * cell];
        const box = { x: left + 0.5, y: top + 0.5, width: cell - 1, height: cell - 1 };
        const moves = m.has(key(x, y)), attacks = a.has(key(x, y));
        const centre = x === 0 && y === 0;
        group.append(svg("rect", { ...box, fill: centre ? "#222" : moves ? MOVE : attacks ? ATTACK : "#e9e4d8",
                                   class: centre ? "c" : moves && attacks ? "ma" : moves ? "m" : attacks ? "a" : null }));
        if (moves && attacks)   // both: the lower right half red
          group.append(svg("path", { d: `M${box.x + box.width} ${box.y} v${box.height} h${-box.width} z`, fill: ATTACK }));
      }
    }
    return group;
  }

  // what a card's face shows in its middle and at its foot, by kind
  function faceParts(card, flip) {
    if (card.kind === "character")
      return { art: [patternArt(card.move, card.attack, 50, 30, 54, flip)], stats: `HP ${card.hp} · ATK ${card.atk}` };
    if (card.kind === "territory") {
      const income = [card.ap_income ? `+${card.ap_income} AP` : null, card.funds_income ? `+${card.funds_income} funds` : null].filter(Boolean).join(" ");
      return { art: [svg("path", { d: "M28 38 L50 16 L72 38 V58 H28 Z", fill: "#e3ecd8", stroke: KIND_COLOUR.territory, "stroke-width": 2 }),
                     svg("rect", { x: 44, y: 42, width: 12, height: 16, fill: KIND_COLOUR.territory }),
                     faceText(income, 50, 10, 84, { "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#2f4d1c" })],
               stats: `HP ${card.hp}` };
    }
    const response = card.timing === "response";
    return { art: [response
      ? svg("path", { d: "M50 6 L72 14 V32 C72 46 60 54 50 58 C40 54 28 46 28 32 V14 Z", fill: "#eadff3", stroke: KIND_COLOUR.event, "stroke-width": 2 })
      : svg("path", { d: "M55 4 L34 34 H48 L42 60 L66 26 H52 Z", fill: "#eadff3", stroke: KIND_COLOUR.event, "stroke-width": 2 })],
             stats: response ? "response" : "own turn" };
  }

  // a card of the hand or the market, drawn: its cost, pattern or income, numbers
  function cardTile(name, card, anchor, { count = 1, width = 72, height = 96, label = null, mine = false } = {}) {
    const { art, stats } = faceParts(card, false);
    return el("div", { class: `card ${mine ? "mine" : ""}`, ...cardAttrs(name, anchor) },
      cardFace({ name, cost: card.cost, colour: KIND_COLOUR[card.kind], art, stats, count, width, height }),
      label ? el("span", { class: "pile" }, label) : null);
  }

  // a card on the grid: its owner's colour, name, HP left (a bar), ATK, state
  // and, for a character, its pattern turned to face where it goes
  function gridCard(entry, card, seat) {
    const mine = entry.owner === seat;
    const state = card.kind === "territory" ? (entry.face_down ? "face down" : "territory")
      : entry.moved ? "moved" : entry.ready ? "ready" : "exhausted";
    const hp = card.hp - entry.damage;
    const face = svg("svg", { class: "grid-face", width: 80, height: 60, viewBox: "0 0 80 60" },
      svg("rect", { x: 0.5, y: 0.5, width: 79, height: 59, rx: 5, class: "back" }),
      faceText(entry.card, 4, 12, 72, { class: "face-name", "font-size": 10.5, "font-weight": 700, fill: "#fff" }),
      svg("text", { x: 4, y: 26, "font-size": 10, fill: "#fff", class: "face-hp" }, `HP ${hp}/${card.hp}`),
      svg("rect", { x: 4, y: 29, width: 40, height: 4, rx: 2, fill: "rgba(255,255,255,.3)" }),
      svg("rect", { x: 4, y: 29, width: Math.max(0, 40 * hp / card.hp), height: 4, rx: 2, fill: "#fff" }),
      card.kind === "character" ? svg("text", { x: 4, y: 44, "font-size": 10, fill: "#fff" }, `ATK ${card.atk}` + (entry.atk_bonus ? ` +${entry.atk_bonus}` : "")) : null,
      svg("text", { x: 4, y: 56, "font-size": 9, fill: "#fff", "fill-opacity": 0.85 }, state));
    if (card.kind === "character") {
      face.append(svg("rect", { x: 49, y: 16, width: 28, height: 28, rx: 2, fill: "#fff" }),
        patternArt(card.move, card.attack, 63, 30, 26, !mine));
    }
    return el("div", { class: `unit ${mine ? "mine" : "theirs"} ${state === "exhausted" ? "exhausted" : ""}`, "data-card": entry.card,
                       title: `${entry.card}: HP ${hp}/${card.hp}` + (entry.damage ? ` (-${entry.damage})` : "") + `, ${state}` }, face);
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
                          "data-anchor": mine ? `slot:${i + 1}` : `slot:op:${i + 1}`, "data-card": slot?.card || null }, `${i + 1}: ${label}`);
    });
    const hand = mine
      ? handCards(info.hand, context.cards.cards)
      : [el("span", { class: "chip back" }, cardsText(info.hand_size))];
    return el("div", { class: `panel ${mine ? "mine" : "theirs"}`, "data-player": who },
      el("div", { class: "counters" }, el("span", { class: "who" }, mine ? `You (seat ${who})` : `Opponent (seat ${who})`),
        el("span", {}, `castle ${info.castle_hp}`), el("span", {}, `AP ${info.ap}`), el("span", {}, `funds ${info.funds}`),
        el("span", {}, `deck ${info.deck_size}`), el("span", {}, `cemetery ${cemeteryCount(info, context.cards)}/${limit}`)),
      el("div", { class: mine ? "hand" : null }, mine ? null : "hand: ", hand), el("div", {}, "events: ", slots),
      el("div", {}, `flow: ${countText(info.flow)}`));
  }

  function handCards(hand, cards) {
    const names = Object.keys(hand).sort();
    if (!names.length) return [el("span", { class: "legend" }, "your hand is empty")];
    return names.map((name) => cardTile(name, cards[name], `hand:${name}`, { count: hand[name], mine: true }));
  }

  // the market: the tops of piles A, B and C, and the row, each card drawn small
  function market(view, cards) {
    const small = { width: 62, height: 83 };
    const tops = view.market.tops.map((name, i) => name
      ? cardTile(name, cards[name], `market:${name}`, { ...small, label: `pile ${"ABC"[i]}` })
      : el("div", { class: "card empty" }, `pile ${"ABC"[i]}: empty`));
    const row = Object.keys(view.market.row).sort().map((name) =>
      cardTile(name, cards[name], `market:${name}`, { ...small, count: view.market.row[name], label: "row" }));
    return el("div", { class: "panel market" }, el("div", { class: "market-cards" },
      el("span", { class: "market-title" }, "Market"), tops, el("span", { class: "sep" }), row));
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

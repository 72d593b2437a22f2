// A Hero incarnation on the page of `xenophon serve` (src/web/static/app.js
// loads this file from /games/hero/board.js): the board from a seat's side,
// the card and avatar details, and the words of its moves. It draws what the
// server sends (the seat's view and the public card data) and decides nothing.
"use strict";
(() => {
  const { registerBoard, el, cardAttrs, countText, cardsText, sum, svg, cardFace, faceText } = window.xenophonPage;
  // the factions' colours on a card's face and a unit's tile
  const FACTION_COLOUR = { R: "#b03a2e", U: "#2e6fb0", G: "#3f8f3f", K: "#4a3f55", N: "#8a7f6a" };

  // the opponent's avatar and rows above, the seat's below
  // each unit shows its name, the notation's letter that stays with it
  // (context.labels, by anchor, from the server; its slot where none is given)
  function draw(view, seat, context) {
    const labels = context.labels || {};
    const board = el("div", { class: "hero" });
    const me = view.players[seat], op = view.players[1 - seat];
    const cards = context.cards.cards;
    board.append(avatar(op, false, context.cards), hand(op, false, cards),
      row(op.back, "op", "back", labels, cards), row(op.front, "op", "front", labels, cards),
      el("hr"),
      row(me.front, "me", "front", labels, cards), row(me.back, "me", "back", labels, cards),
      avatar(me, true, context.cards), hand(me, true, cards));
    // the phase as a player names it, and the battle's units from this seat's side
    const status = [`turn ${view.turn}`, (context.cards.phases || {})[view.phase] || view.phase];
    if (view.attack) {
      const side = (owner, slot) => !slot ? "gone" : slot === "avatar" ? (owner === seat ? "your avatar" : "the opponent's avatar") : label(labels, owner === seat ? "me" : "op", slot);
      status.push(`attack: ${side(view.active, view.attack.attacker)} > ${side(1 - view.active, view.attack.target)}`);
    }
    if (view.pending) status.push(`pending ${view.pending.kind}: ${view.pending.source}`);
    board.append(el("div", { class: "panel" }, status.join(" · ")));
    return board;
  }

  function avatar(info, mine, cards) {
    const card = cards.avatars[info.avatar];
    return el("div", { class: `avatar ${mine ? "mine" : "theirs"}`, "data-anchor": mine ? "avatar:me" : "avatar:op", "data-card": info.avatar },
      el("span", { class: "name" }, `${mine ? "You" : "Opponent"}: ${info.avatar}`),
      el("span", { class: "hp" }, `HP ${info.hp}/${card.hp}`),
      el("span", {}, `charisma ${info.charisma_used}/${card.charisma}`),
      el("span", {}, `deck ${info.deck_size}`),
      info.ability_used ? el("span", {}, "ability used") : null);
  }

  function hand(info, mine, cards) {
    const graveyard = el("div", { class: "legend" }, `graveyard: ${countText(info.graveyard)}`);
    if (mine) return el("div", { class: "panel" }, el("div", { class: "hand" }, handCards(info.hand, cards)), graveyard);
    return el("div", { class: "panel" }, "hand: ", el("span", { class: "chip back" }, cardsText(info.hand_size)),
      sum(info.known) ? el("span", {}, ` known: ${countText(info.known)}`) : null, graveyard);
  }

  // attack pips: one blade a strike
  function pips(n, x, y, colour) {
    return Array.from({ length: n }, (_, i) => svg("path", { d: `M${x + i * 10} ${y} l4 -12 l4 12 z`, fill: colour, class: "pip" }));
  }

  // what a card's face shows: a unit's power and attacks, an operation's
  // timing and the faction symbols its condition asks for
  function faceParts(card) {
    const colour = FACTION_COLOUR[card.faction] || "#666";
    if (card.kind === "unit")
      return { art: [svg("path", { d: "M50 2 L76 10 V30 C76 46 62 54 50 60 C38 54 24 46 24 30 V10 Z", fill: "#fff", stroke: colour, "stroke-width": 2.5 }),
                     svg("text", { x: 50, y: 32, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: colour }, card.power),
                     ...pips(card.attack, 46 - (card.attack - 1) * 5, 52, colour)],
               stats: `${card.attack} attack${card.attack === 1 ? "" : "s"}` + (card.keywords.length ? ` · ${card.keywords[0].toLowerCase().replace("_", " ")}` : "") };
    return { art: [svg("rect", { x: 26, y: 6, width: 48, height: 48, rx: 4, fill: "#fff", stroke: colour, "stroke-width": 2 }),
                   svg("path", { d: "M34 18 H66 M34 28 H66 M34 38 H56", stroke: colour, "stroke-width": 3, "stroke-linecap": "round" })],
             stats: `${card.timing || "normal"} ${card.condition || ""}`.trim() };
  }

  function handCards(hand, cards) {
    const names = Object.keys(hand).sort();
    if (!names.length) return [el("span", { class: "legend" }, "your hand is empty")];
    return names.map((name) => {
      const card = cards[name], { art, stats } = faceParts(card);
      return el("div", { class: "card mine", ...cardAttrs(name, `hand:${name}`) },
        cardFace({ name, cost: card.cost, colour: FACTION_COLOUR[card.faction] || "#666", art, stats, count: hand[name], width: 76, height: 102 }));
    });
  }

  // a unit's numbers on its tile: its cost, its power now and its attacks
  function unitStats(unit, card, colour) {
    return svg("svg", { class: "unit-stats", width: 106, height: 18, viewBox: "0 0 106 18" },
      card ? svg("circle", { cx: 8, cy: 9, r: 7.5, fill: "#f2c94c", stroke: "#8a6d1a" }) : null,
      card ? svg("text", { x: 8, y: 12.5, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: "#3b2f0b" }, card.cost) : null,
      svg("rect", { x: 20, y: 1, width: 44, height: 16, rx: 3, fill: "#fff" }),
      svg("text", { x: 42, y: 13, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: colour, class: "power" }, unit.power),
      ...pips(unit.attack, 70, 16, "#fff"));
  }

  function label(labels, side, slot) {
    return labels[`unit:${side}:${slot}`] || (side === "op" ? `op.${slot}` : slot);
  }

  function row(units, side, which, labels, cards) {
    const letter = which === "front" ? "F" : "B";
    const box = el("div", { class: "row", "data-anchor": `row:${side}:${which}` },
      el("span", { class: "row-label" }, which));
    units.forEach((unit, i) => {
      const slot = `${letter}${i + 1}`;
      const card = cards[unit.card];
      const tile = el("div", { class: `hunit ${side === "me" ? "mine" : "theirs"} ${unit.used ? "used" : ""}`,
                               "data-anchor": `unit:${side}:${slot}`, "data-card": unit.card,
                               title: `${unit.card}: ${unit.power} power, ${unit.attack} attack${unit.attack === 1 ? "" : "s"}` },
        el("b", { class: "name" }, unit.card), el("span", { class: "unit-name" }, label(labels, side, slot)),
        unitStats(unit, card, side === "me" ? "var(--mine)" : "var(--theirs)"),
        el("span", { class: "state" }, (unit.used ? "used" : "standby") + (unit.damage ? ` · dmg ${unit.damage}` : "") + (unit.can_move ? "" : " · stays")));
      tile.style.borderLeftColor = FACTION_COLOUR[card?.faction] || "#fff";
      box.append(tile);
    });
    return box;
  }

  // the details of an avatar or a card: its text in players' words (the
  // lines of `card NAME`, from the public card data), its kind line first
  function details(name, cards) {
    const card = (cards.avatars && cards.avatars[name]) || cards.cards[name];
    if (!card) return [el("h4", {}, name)];
    const [kind, ...lines] = card.text;
    return [el("h4", {}, name), el("div", { class: "legend" }, kind.slice(name.length).trim().replace(/^\(|\)$/g, "")),
      ...lines.map((line) => el("div", { class: "words" }, line))];
  }

  // what a move's button says beside its text: a discard is never a surprise
  function note(text) {
    return text.startsWith("retainer discard ") ? "discards the card for a Retainer token" : null;
  }

  registerBoard("hero", {
    draw,
    details,
    note,
    moveExample: "type a move, e.g. deploy Goblin Raider back",
    // a move's first word as the status line says it ("AI: deploys ...")
    verbs: { move: "moves", attack: "attacks", end: "ends the phase", pass: "passes", deploy: "deploys",
             play: "plays", guard: "guards with", retainer: "makes a retainer from",
             ability: "uses its avatar's ability", target: "targets" },
  });
})();

// A Hero incarnation on the page of `xenophon serve` (src/web/static/app.js
// loads this file from /games/hero/board.js): the board from a seat's side,
// the card and avatar details, and the words of its moves. It draws what the
// server sends (the seat's view and the public card data) and decides nothing.
"use strict";
(() => {
  const { registerBoard, el, handChips, countText, cardsText, sum } = window.xenophonPage;

  // the opponent's avatar and rows above, the seat's below
  // each unit shows its name, the notation's letter that stays with it
  // (context.labels, by anchor, from the server; its slot where none is given)
  function draw(view, seat, context) {
    const labels = context.labels || {};
    const board = el("div", { class: "hero" });
    const me = view.players[seat], op = view.players[1 - seat];
    board.append(avatar(op, false, context.cards), hand(op, false),
      row(op.back, "op", "back", labels), row(op.front, "op", "front", labels),
      el("hr"),
      row(me.front, "me", "front", labels), row(me.back, "me", "back", labels),
      avatar(me, true, context.cards), hand(me, true));
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

  function hand(info, mine) {
    const chips = mine
      ? handChips(info.hand)
      : [el("span", { class: "chip back" }, cardsText(info.hand_size)),
         sum(info.known) ? el("span", {}, ` known: ${countText(info.known)}`) : null];
    return el("div", { class: "panel" }, "hand: ", chips, el("span", { class: "legend" }, `  graveyard: ${countText(info.graveyard)}`));
  }

  function label(labels, side, slot) {
    return labels[`unit:${side}:${slot}`] || (side === "op" ? `op.${slot}` : slot);
  }

  function row(units, side, which, labels) {
    const letter = which === "front" ? "F" : "B";
    const box = el("div", { class: "row", "data-anchor": `row:${side}:${which}` },
      el("span", { class: "row-label" }, which));
    units.forEach((unit, i) => {
      const slot = `${letter}${i + 1}`;
      box.append(el("div", { class: `hunit ${side === "me" ? "mine" : "theirs"} ${unit.used ? "used" : ""}`,
                             "data-anchor": `unit:${side}:${slot}`, "data-card": unit.card },
        el("b", { class: "name" }, unit.card), el("span", { class: "unit-name" }, label(labels, side, slot)), `  ${unit.power}/${unit.attack}`, el("br"),
        (unit.used ? "used" : "standby") + (unit.damage ? ` · dmg ${unit.damage}` : "") + (unit.can_move ? "" : " · stays")));
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

#!/bin/sh
# A random player for xenophon in POSIX sh and awk (docs/players.md):
#   xenophon match "cmd:examples/random_player.sh" random
# It reads the protocol's lines; each message begins with its type, and a
# decision ends with its legal moves: {"type": "move", ..., "legal_moves": ["a", "b"]}
# (protocol 2: a piece that has a name is named by it, "attack c > op.a").
# The moves are cut off the line's end and echoed back as written (their JSON
# escapes kept), so no move text is ever decoded.

seed=0
decisions=0
while IFS= read -r line; do
    case $line in
    '{"type": "start"'*)
        seed=$(printf '%s\n' "$line" | sed -n 's/.*"seed": \([0-9]*\).*/\1/p')
        printf '%s\n' '{"type": "ready", "protocol": 2, "name": "random_player.sh"}'
        ;;
    '{"type": "move"'*)
        decisions=$((decisions + 1))
        printf '%s\n' "$line" | awk -v seed="${seed:-0}" -v n="$decisions" '
        {
            key = "\"legal_moves\": [\""
            moves = substr($0, index($0, key) + length(key))
            sub(/"\]\}$/, "", moves)
            count = split(moves, move, /", "/)
            srand((seed * 7919 + n) % 2147483647)
            printf "{\"move\": \"%s\"}\n", move[int(rand() * count) + 1]
        }'
        ;;
    '{"type": "game_over"'*)
        exit 0
        ;;
    esac
done

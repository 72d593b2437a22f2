"""Search: information-set MCTS and the baseline bots, for both games."""

"""lab.move_regret: the table's rows, its determinism and its unbiased gain column."""

from lab.move_regret import measure


def test_same_seed_same_table_and_every_policy_row():
    first = measure(["greedy", "random"], positions=3, rollouts=2, random_plies=4, seed=5)
    again = measure(["greedy", "random"], positions=3, rollouts=2, random_plies=4, seed=5)
    assert first == again
    assert first["positions"] == 3
    assert {"argmax A", "uniform", "random", "greedy"} <= set(first)
    other = measure(["greedy"], positions=3, rollouts=2, random_plies=4, seed=6)
    assert other["greedy"] != first["greedy"]


def test_regret_under_a_is_zero_only_for_its_own_argmax():
    table = measure(["random"], positions=4, rollouts=4, random_plies=4, seed=3)
    assert table["argmax A"]["regret_A"] == (0.0, 0.0)
    # the uniform row's regret is max(A) - mean(A), positive whenever a position's values are not all equal
    assert table["uniform"]["regret_A"][0] > 0.0

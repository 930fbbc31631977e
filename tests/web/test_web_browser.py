"""The web page in a real headless chromium: play every game to the end by clicking, watch, replay, tournament.

Fixtures (server, browser, page) are in conftest.py; every test fails on a browser console error. Screenshots go
to tests/web/artifacts/ (git-ignored).
"""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

import envs
from training.arena.records import save_records
from training.arena.tournament import play_game, run_tournament, save_result
from training.play.web.views import view_for

pytestmark = pytest.mark.xdist_group("machine")  # chromium and a live server: one worker runs these, one at a time

# small options keep a game to seconds: Bestiarium side 5, two-player Boaring
PLAY = {
    "battle_sheep": ({"num_players": 2, "pasture": "build"}, ["human", "random"]),
    "bestiarium": ({"board_size": 5}, ["human", "random"]),
    "beasty_borders": ({"variant": "main"}, ["human", "random"]),
    "beasty_borders_without_luck": ({"variant": "without_luck"}, ["human", "random"]),
    "boaring": ({"num_players": 2}, ["human", "random"]),
}
CLICKS = {
    "bestiarium": ".bx-cell.legal, .move-btn[data-kind=pass]",
    "beasty_borders": ".bb-type.legal, .bb-figure.legal, .move-btn[data-kind=pass]",
    "boaring": ".bo-card.legal, .bo-eat.legal, .move-btn[data-kind=no_eat]",
}
STATUS = "document.getElementById('game').dataset.status"
PLY = "document.getElementById('game').dataset.ply"
BUSY = "document.getElementById('game').dataset.busy"


def start_game(page, server, game, options, seats, delay=0, seed=None):
    page.goto(server + "/#/")
    page.wait_for_selector("#game-select option", state="attached")
    page.select_option("#game-select", game)
    for name, value in options.items():
        page.select_option(f"#opt-{name}", label=str(value))
    for i, spec in enumerate(seats):
        page.select_option(f"#seat-{i}", spec)
    page.fill("#new-delay", str(delay))
    if seed is not None:
        page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_url("**/#/game/*")
    page.wait_for_function(f"() => !!{STATUS}")
    return page.url.split("#/game/")[1]


def seat_token(page, gid, seat=0) -> dict:
    """The headers of an API request as the page's seat ``seat`` (its token, kept in the tab's sessionStorage)."""
    token = page.evaluate(
        "([id, s]) => JSON.parse(sessionStorage.getItem('barnyard-tokens-' + id))[s]", [gid, str(seat)]
    )
    return {"X-Seat-Token": token}


def ply(page) -> int:
    return int(page.get_attribute("#game", "data-ply"))


def click_random(page, selector, rng):
    nodes = page.locator(selector)
    count = nodes.count()
    assert count, f"nothing to click: {selector}"
    nodes.nth(int(rng.integers(count))).click()


def make_move(page, game, rng, before):
    """One legal move by clicking, as a person would; returns when the page shows the next ply."""
    if game == "battle_sheep":
        if page.locator(".bs-ghost").count():  # build: click cells until one tile fits them all
            click_random(page, ".bs-ghost", rng)
            while True:
                page.wait_for_function(
                    f"(p) => {PLY} !== p || (!{BUSY} && document.querySelector('.narrow'))", arg=str(before)
                )
                if ply(page) != before:
                    break
                click_random(page, ".narrow", rng)
        elif page.locator(".bs-target").count():
            click_random(page, ".bs-target", rng)
        else:  # a stack, a direction, a count
            click_random(page, ".bs-stack.selectable", rng)
            click_random(page, ".bs-dest", rng)
            click_random(page, ".bs-count", rng)
    else:
        click_random(page, CLICKS.get(game, ".generic-move"), rng)
    page.wait_for_function(f"(p) => {PLY} !== p", arg=str(before))


def human_turns(page, game, rng, turns=None):
    """Yields at each of the human seat's turns, and once more when the game is over; when resumed, plays a
    random legal move by clicking (``make_move``). Stops at the end or after ``turns`` yields."""
    taken = 0
    while turns is None or taken < turns:
        page.wait_for_function(f"() => ['your_turn', 'over'].includes({STATUS})", timeout=60_000)
        yield
        taken += 1
        if page.get_attribute("#game", "data-status") == "over":
            return
        make_move(page, game, rng, ply(page))


def play_human_to_the_end(page, game, rng) -> int:
    moves = 0
    while True:
        page.wait_for_function(f"() => ['your_turn', 'over', 'halted'].includes({STATUS})", timeout=60_000)
        status = page.get_attribute("#game", "data-status")
        if status == "over":
            return moves
        assert status == "your_turn", page.locator("#error").inner_text()
        make_move(page, game, rng, ply(page))
        moves += 1


@pytest.mark.parametrize("case", list(PLAY))
def test_play_a_game_against_random_by_clicking(page, server, artifacts, case):
    game = case.replace("_without_luck", "")
    options, seats = PLAY[case]
    gid = start_game(page, server, game, options, seats)
    assert "Your view as player_0" in page.inner_text("#view-label")
    assert not page.is_visible("#game-seed")  # a human plays: the seed would tell the deal
    moves = play_human_to_the_end(page, game, np.random.default_rng(5))
    final = page.request.get(f"{server}/api/games/{gid}", headers=seat_token(page, gid)).json()
    assert final["status"] == "over" and moves >= 3
    # docs/play.md: the seed is shown when the game is over (issue 39 item 10: it was only in the file name)
    assert isinstance(final["seed"], int) and page.inner_text("#game-seed") == f"Seed {final['seed']}"
    shown = page.inner_text("#result")
    assert page.is_visible("#result") and shown.startswith(final["result"]["text"])
    assert page.locator("#log li.move").count() == final["ply"] == ply(page)
    assert page.is_visible("#download-record")
    page.screenshot(path=str(artifacts / f"{case}.png"), full_page=True)


@pytest.mark.parametrize("game", [g for g in envs.GAMES if view_for(g).drawing is None] + ["beasty_borders"])
def test_a_game_without_a_drawing_of_its_own_plays_on_the_generic_one(page, server, artifacts, game, monkeypatch):
    """A game whose descriptor names no board drawing (and Beasty Borders with its drawing taken away) is drawn by
    the page's generic drawing: the board's text picture and every legal move as a button, clicked to the end."""
    monkeypatch.setattr(view_for(game), "drawing", None)
    options = view_for(game).browser_test_options
    gid = start_game(
        page, server, game, options, ["human"] + ["random"] * (envs.make_game(game, **options).num_players - 1)
    )
    rng = np.random.default_rng(3)
    page.wait_for_function(f"() => ['your_turn', 'over'].includes({STATUS})", timeout=60_000)
    assert page.locator("#board .generic-board text").count() >= 1
    if page.get_attribute("#game", "data-status") == "your_turn":
        shown = {
            page.locator(".generic-move").nth(k).inner_text() for k in range(page.locator(".generic-move").count())
        }
        listed = page.request.get(f"{server}/api/games/{gid}", headers=seat_token(page, gid)).json()["moves"]
        assert shown == {m["text"] for m in listed}
    moves = play_human_to_the_end(page, game, rng)
    final = page.request.get(f"{server}/api/games/{gid}", headers=seat_token(page, gid)).json()
    assert final["status"] == "over" and final["ply"] == ply(page) and moves >= 1
    page.screenshot(path=str(artifacts / f"generic-{game}.png"), full_page=True)


def test_watch_a_bot_game_with_pause_step_and_speed(page, server, artifacts):
    gid = start_game(page, server, "bestiarium", {"board_size": 5}, ["random", "greedy"], delay=600)
    assert "Spectator view" in page.inner_text("#view-label")
    page.click("#btn-play")  # pause
    assert page.inner_text("#btn-play") == "Play"
    page.wait_for_function(f"() => !{BUSY}")  # a step already asked for may still land
    paused_at = ply(page)
    page.wait_for_timeout(900)
    assert ply(page) == paused_at
    page.click("#btn-step")
    page.wait_for_function(f"(p) => {PLY} !== p", arg=str(paused_at))
    assert ply(page) == paused_at + 1
    page.eval_on_selector("#speed", "e => { e.value = 0; e.dispatchEvent(new Event('input')); }")
    page.click("#btn-play")
    page.wait_for_function(f"() => {STATUS} === 'over'", timeout=90_000)
    final = page.request.get(f"{server}/api/games/{gid}").json()
    assert page.inner_text("#result").startswith(final["result"]["text"])
    assert page.locator("#log li.move").count() == final["ply"]
    page.screenshot(path=str(artifacts / "watch.png"), full_page=True)


def test_replay_shows_a_language_model_s_transcript_as_text(page, server, artifacts, tmp_path):
    """A record whose move at ply 0 has an ``llm:`` transcript (as ``evaluate --save-games`` writes it): the replay
    after that move shows the transcript beside the move list, markup in a reply as plain text; before it, none."""
    record = play_game("beasty_borders", {}, ["random", "random"], seed=2)
    record.transcripts = [
        {
            "ply": 0,
            "seat": 0,
            "policy": "llm:scripted@http://127.0.0.1:1/v1",
            "model": "scripted",
            "system": "You are a player.",
            "prompt": "It is your turn. Your legal moves (2):\n  1. A\n  2. pass",
            "attempts": [
                {
                    "attempt": 1,
                    "feedback": None,
                    "reply": "<b>bold</b> nonsense",
                    "move": None,
                    "refusal": "not a move",
                    "error": None,
                    "tokens": {"prompt": 10, "completion": 3, "total": 13},
                    "latency_s": 0.01,
                },
                {
                    "attempt": 2,
                    "feedback": "Your answer was refused: not a move.",
                    "reply": "Answer: 1",
                    "move": "A",
                    "refusal": None,
                    "error": None,
                    "tokens": None,
                    "latency_s": 0.02,
                },
            ],
            "action": record.actions[0],
            "move": "A",
            "fallback": None,
        }
    ]
    path = save_records([record], tmp_path / "games.json")
    page.goto(server + "/#/replay")
    page.set_input_files("#replay-file", str(path))  # one game: the page opens it
    page.wait_for_function("() => document.getElementById('game').dataset.mode === 'replay'")
    assert not page.is_visible("#transcripts")
    page.click("#btn-fwd")
    page.wait_for_function(f"() => {PLY} === '1'")
    assert page.is_visible("#transcripts")
    assert page.locator("#transcripts b").count() == 0  # markup in a reply is text
    text = page.inner_text("#transcripts")
    assert "<b>bold</b> nonsense" in text and "refused: not a move" in text and "read as: A" in text
    assert "Ask 2" in text and "13 tokens" in text
    page.screenshot(path=str(artifacts / "replay_transcript.png"), full_page=True)
    page.click("#btn-fwd")
    page.wait_for_function(f"() => {PLY} === '2'")
    assert not page.is_visible("#transcripts")


def test_replay_a_record_file_forwards_and_backwards(page, server, artifacts, tmp_path):
    records = [play_game("boaring", {"num_players": 3}, ["random", "greedy", "random"], seed=s) for s in (3, 4)]
    path = save_records(records, tmp_path / "games.json")
    page.goto(server + "/#/replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay-link")
    assert page.locator(".replay-link").count() == 2
    page.locator(".replay-link").nth(1).click()
    page.wait_for_function("() => document.getElementById('game').dataset.mode === 'replay'")
    assert ply(page) == 0 and "Spectator view" in page.inner_text("#view-label")
    for expected in (1, 2, 3):
        page.click("#btn-fwd")
        page.wait_for_function(f"() => {PLY} === '{expected}'")
    assert page.locator("#log li.move").count() == 3
    page.click("#btn-back")
    page.wait_for_function(f"() => {PLY} === '2'")
    assert page.locator("#log li.move").count() == 2
    page.click("#btn-last")
    total = len(records[1].actions)
    page.wait_for_function(f"() => {PLY} === '{total}'")
    assert page.is_visible("#result") and page.inner_text("#ply-label") == f"ply {total} / {total}"
    winner = int(np.argmax(records[1].returns))
    if sorted(records[1].returns)[-1] != sorted(records[1].returns)[-2]:
        assert page.inner_text("#result").startswith(f"player_{winner} ")
    page.screenshot(path=str(artifacts / "replay.png"), full_page=True)
    page.click("#btn-first")
    page.wait_for_function(f"() => {PLY} === '0'")
    assert not page.is_visible("#result")


def test_tournament_table_and_heat_map(page, server, artifacts, tmp_path):
    result = run_tournament("beasty_borders", {}, ["random", "greedy"], games=4, seed=2, workers=1, progress=False)
    json_path, _ = save_result(result, tmp_path)
    page.goto(server + "/#/tournament")
    page.set_input_files("#tournament-file", str(json_path))
    page.wait_for_selector("#tournament-heatmap")
    assert page.locator("#tournament-pairs tr").count() == 2
    assert page.locator("#tournament-heatmap .heat-cell").count() == 4
    share = result.pairs[0].win_share
    assert f"{share:.3f}" in page.inner_text("#tournament-pairs")
    assert f"{share:.2f}" in page.text_content("#tournament-heatmap")
    assert_heat_map_texts_fit_and_stay_apart(page)
    page.screenshot(path=str(artifacts / "tournament.png"), full_page=True)


def test_a_failing_policy_shows_an_error_and_the_server_goes_on(page, server):
    start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "crash"])
    page.wait_for_function(f"() => {STATUS} === 'your_turn'")
    make_move(page, "bestiarium", np.random.default_rng(0), 0)
    page.wait_for_function(f"() => {STATUS} === 'halted'")
    assert "this policy always fails" in page.inner_text("#error")
    start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "random"])
    page.wait_for_function(f"() => {STATUS} === 'your_turn'")


def test_games_in_two_tabs_stay_separate(page, server):
    other = page.context.new_page()
    errors = page.console_errors
    other.on(
        "console", lambda msg: errors.append(f"tab 2 console {msg.type}: {msg.text}") if msg.type == "error" else None
    )
    tabs: dict[str, set] = {"first": set(), "second": set()}  # each tab names itself in every request (issue 50)
    page.on("request", lambda r: tabs["first"].add(r.headers.get("x-barnyard-tab")) if "/api/" in r.url else None)
    other.on("request", lambda r: tabs["second"].add(r.headers.get("x-barnyard-tab")) if "/api/" in r.url else None)
    first = start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "random"])
    second = start_game(other, server, "bestiarium", {"board_size": 5}, ["human", "random"])
    assert first != second
    assert len(tabs["first"]) == len(tabs["second"]) == 1 and tabs["first"] != tabs["second"], tabs
    assert all(re.fullmatch(r"[0-9a-f]{24}", name) for name in tabs["first"] | tabs["second"]), tabs
    make_move(page, "bestiarium", np.random.default_rng(0), 0)
    page.wait_for_function(f"() => {STATUS} === 'your_turn'")
    assert ply(page) == 2 and ply(other) == 0
    other.reload()
    other.wait_for_function(f"() => {STATUS} === 'your_turn'")
    assert ply(other) == 0
    assert other.request.get(f"{server}/api/games/{second}", headers=seat_token(other, second)).json()["ply"] == 0
    # the first tab holds no token of the second game: its page is refused, with a message
    page.goto(server + f"/#/game/{second}")
    page.wait_for_function("() => !document.getElementById('banner').hidden")
    assert "token" in page.inner_text("#banner")
    page.console_errors.clear()  # the refused request (403) is logged by the browser


def test_a_seat_link_opens_that_seat_and_no_other(page, server, browser):
    """Two human seats: the page that made the game lists each seat's link; another browser opening player_1's
    link sees player_1's view only, and without a link a game with human seats shows nothing."""
    gid = start_game(page, server, "boaring", {"num_players": 2}, ["human", "human"])
    page.wait_for_selector("#seat-links .seat-link-url")
    links = {a.get_attribute("data-seat"): a.get_attribute("href") for a in page.locator(".seat-link-url").all()}
    assert set(links) == {"0", "1"}
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab = other.new_page()
        tab.goto(links["1"])
        tab.wait_for_function(f"() => {STATUS} !== ''")
        assert tab.get_attribute("#game", "data-viewer") == "1"
        assert "#/game/" in tab.url and links["1"].rsplit("/", 1)[1] not in tab.url  # the token left the address
        assert "Your view as player_1" in tab.inner_text("#view-label")
        stranger = other.new_page()
        stranger.goto(server + f"/#/game/{gid}")
        stranger.wait_for_function("() => !document.getElementById('banner').hidden")
        assert "token" in stranger.inner_text("#banner") and stranger.get_attribute("#game", "data-status") == ""
    finally:
        other.close()


def test_a_seat_that_leaves_is_played_by_a_bot_and_the_other_players_screen_says_so(page, server, browser, artifacts):
    """Two players by seat links; player_1 leaves on its turn. player_0's page said nothing and waited for ever;
    now its log says that player_1 left and who plays the seat, the players table shows it, and the game goes on
    to player_0's next turn."""
    gid = start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "human"])
    page.wait_for_selector("#seat-links .seat-link-url")
    links = {a.get_attribute("data-seat"): a.get_attribute("href") for a in page.locator(".seat-link-url").all()}
    leaver = seat_token(page, gid, 1)
    page.goto(server + "/#/")  # the page that made the game steps back: each player has their own link
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab = other.new_page()
        errors: list[str] = []
        tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        tab.goto(links["0"])
        tab.wait_for_function(f"() => {STATUS} === 'your_turn'")
        make_move(tab, "bestiarium", np.random.default_rng(1), ply(tab))
        tab.wait_for_function(f"() => {STATUS} === 'other_human'")
        r = page.request.post(f"{server}/api/games/{gid}/close", headers=leaver)
        assert r.ok and r.json()["played_by"].startswith("human, then greedy")
        tab.wait_for_function(f"() => {STATUS} === 'your_turn' && Number({PLY}) >= 2", timeout=30_000)
        log = tab.inner_text("#log")
        assert "player_1 (" in log and "left the game at ply 1: greedy plays their seat from here" in log, log
        assert "human, then greedy from ply 1" in tab.inner_text("#players")
        tab.screenshot(path=str(artifacts / "seat_left.png"))
        assert not errors, errors
    finally:
        other.close()


OVERLAP = """(pairs) => {
  const hits = [];
  for (const [a, b] of pairs) {
    for (const x of document.querySelectorAll(a)) for (const y of document.querySelectorAll(b)) {
      const r = x.getBoundingClientRect(), s = y.getBoundingClientRect();
      if (r.width && s.width && r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom) {
        hits.push(`${a} "${x.textContent}" / ${b} "${y.textContent}"`);
      }
    }
  }
  return hits;
}"""


def test_boaring_table_texts_do_not_overlap_and_the_end_offers_a_rematch(page, server):
    """A DOM overlap check of Boaring's table (the phase line and "last reveal" were both drawn at y = 62), then
    at the end: no Pause/Step, a rules link, and a rematch with the same settings."""
    rng = np.random.default_rng(3)
    gid = start_game(page, server, "boaring", {"num_players": 2}, ["human", "random"])
    checked = 0
    for _ in human_turns(page, "boaring", rng):
        if page.locator(".bo-last").count() and page.locator(".bo-what").count():
            hits = page.evaluate(OVERLAP, [[".bo-what", ".bo-last"], [".bo-last", ".bo-animal"]])
            assert not hits, hits
            checked += 1
    assert checked >= 3
    assert not page.is_visible("#btn-play") and not page.is_visible("#btn-step")
    assert page.get_attribute("#rules-link", "href") == "/rules/boaring"
    assert page.is_visible("#rematch")
    page.click("#rematch")
    page.wait_for_function(f"(old) => !location.hash.includes(old) && {STATUS} !== 'over' && {STATUS} !== ''", arg=gid)
    new = page.url.split("#/game/")[1]
    p = page.request.get(f"{server}/api/games/{new}", headers=seat_token(page, new)).json()
    old = page.request.get(f"{server}/api/games/{gid}", headers=seat_token(page, gid)).json()
    assert p["settings"] == old["settings"] and p["settings"]["seats"] == ["human", "random"]
    assert p["settings"]["options"]["num_players"] == 2
    assert p["ply"] <= 1


def test_heat_map_colours_parity_as_even_and_has_a_legend(page, server, tmp_path):
    """In 4-player Boaring parity is 0.25: a share of 0.25 is an even result (the neutral yellow), not a loss."""
    result = run_tournament(
        "boaring", {"num_players": 4}, ["random", "greedy"], games=4, seed=1, workers=1, progress=False
    )
    data = result.to_json()
    data["pairs"][0].update(win_share=0.25, parity=0.25)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    page.goto(server + "/#/tournament")
    page.set_input_files("#tournament-file", str(path))
    page.wait_for_selector("#tournament-heatmap")
    cell = page.locator('#tournament-heatmap .heat-cell[data-row="0"][data-col="1"]')
    assert cell.get_attribute("fill") == "rgb(215,215,80)"
    assert page.locator("#tournament-heatmap .heat-legend").count() == 3
    assert "parity 0.25" in page.text_content("#tournament-heatmap")


def test_a_dropped_game_says_so_in_the_page(page, server):
    gid = start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "random"])
    page.wait_for_function(f"() => {STATUS} === 'your_turn'")
    r = page.request.post(f"{server}/api/games/{gid}/close", headers=seat_token(page, gid))
    assert r.ok
    page.reload()
    page.wait_for_function("() => !document.getElementById('banner').hidden")
    assert "closed" in page.inner_text("#banner")
    page.console_errors.clear()  # the browser logs the 404 itself


def test_a_long_checkpoint_name_does_not_widen_the_page(page, server):
    page.goto(server + "/#/")
    page.wait_for_selector("#seat-1 option", state="attached")
    long = "runs/" + "a-very-long-run-name-" * 12 + "/policy.pt"
    page.evaluate(
        """(name) => {
      const select = document.getElementById('seat-1');
      const option = document.createElement('option');
      option.value = option.textContent = name + ' {"num_players": 2}';
      select.appendChild(option);
      select.value = option.value;
    }""",
        long,
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280


def test_beasty_borders_die_is_not_under_the_supplies(page, server):
    rng = np.random.default_rng(1)
    start_game(page, server, "beasty_borders", {"variant": "main"}, ["human", "random"])
    for _ in human_turns(page, "beasty_borders", rng, 4):
        if page.locator(".bb-die-box").count():
            hits = page.evaluate(OVERLAP, [[".bb-die-box", ".bb-supply"], [".bb-die", ".bb-supply"]])
            assert not hits, hits
    assert page.locator(".bb-die-box").count()


# ----- coordinates (issue 31 item 11): every board labels its cells in the log's own notation ------------------------
ON_CIRCLE = """([labels, circles]) => {
  // a label (its box) on a circle (a stack, a stone): the box's point nearest the circle's centre lies inside it
  const hits = [];
  for (const x of document.querySelectorAll(labels)) for (const c of document.querySelectorAll(circles)) {
    const r = x.getBoundingClientRect(), s = c.getBoundingClientRect();
    const cx = (s.left + s.right) / 2, cy = (s.top + s.bottom) / 2, radius = s.width / 2;
    const dx = Math.max(r.left - cx, 0, cx - r.right), dy = Math.max(r.top - cy, 0, cy - r.bottom);
    if (r.width && radius && Math.hypot(dx, dy) < radius) hits.push(`"${x.textContent}" on a circle at ${cx},${cy}`);
  }
  return hits;
}"""
COORDS = """(sel) => [...document.querySelectorAll(sel)].map(n => {
  const r = n.getBoundingClientRect();
  return {text: n.textContent, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, w: r.width, h: r.height,
          data: {...n.dataset}};
})"""
CELL_BOX = """(sel) => { const n = document.querySelector(sel); if (!n) return null;
  const r = n.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""


def log_texts(page) -> list[str]:
    return page.eval_on_selector_all("#log li", "nodes => nodes.map(n => n.textContent)")


def assert_inside(page, label, cell_selector):
    box = page.evaluate(CELL_BOX, cell_selector)
    assert box is not None, f"no cell {cell_selector}"
    assert box["left"] < label["x"] < box["right"] and box["top"] < label["y"] < box["bottom"], (label, box)
    # small: a corner of the cell, not the whole of it
    assert label["w"] < 0.8 * (box["right"] - box["left"]) and label["h"] < 0.4 * (box["bottom"] - box["top"])


def test_battle_sheep_cells_are_labelled_as_the_log_names_them(page, server, artifacts):
    """Battle Sheep writes axial cells ("T 0,-1/2", "S -3,2", "-3,2 NE 3"): every pasture cell and every cell a tile
    could cover carries that label; the cell of each legal move's text, and (once the pasture stays put, after the
    build, whose frame re-centres after every tile: RULES.md) each cell the log names, is found by its label; no
    label covers a stack (issue 39 item 10: they sat on its top)."""
    rng = np.random.default_rng(5)
    gid = start_game(page, server, "battle_sheep", {"num_players": 2, "pasture": "build"}, ["human", "random"])
    named, phases = set(), set()
    for _ in human_turns(page, "battle_sheep", rng, 14):
        labels = page.evaluate(COORDS, "#board .coord")
        cells = page.eval_on_selector_all(
            "#board .bs-cell, #board .bs-ghost", "ns => ns.map(n => n.dataset.q + ',' + n.dataset.r)"
        )
        assert labels and {lab["text"] for lab in labels} == set(cells)
        by_text = {lab["text"]: lab for lab in labels}
        p = page.request.get(f"{server}/api/games/{gid}", headers=seat_token(page, gid)).json()
        phases.add(p["board"]["phase"])
        texts = [m["text"] for m in p["moves"][:40]]
        if p["board"]["phase"] != "build":
            texts += [e["text"] for e in p["log"] if e["ply"] is not None and not e["text"].startswith("T ")]
        for text in texts:
            q, r = re.match(r"^[TS]?\s*(-?\d+),(-?\d+)", text).groups()
            named.add(f"{q},{r}")
            assert_inside(
                page,
                by_text[f"{q},{r}"],
                f'#board .bs-cell[data-q="{q}"][data-r="{r}"], #board .bs-ghost[data-q="{q}"][data-r="{r}"]',
            )
        hits = page.evaluate(ON_CIRCLE, ["#board .coord", "#board .bs-stack circle"])
        assert not hits, hits
    page.screenshot(path=str(artifacts / "coords_battle_sheep.png"))
    assert {"build", "place", "move"} <= phases and len(named) >= 10, (phases, named)


def test_bestiarium_cells_are_labelled_as_the_log_names_them(page, server, artifacts):
    """Bestiarium's log writes "c4" / "grow c4": each cell carries its name, the named cell's label lies in that
    cell, and no label covers a stone (issue 39 item 10: they sat on its top)."""
    rng = np.random.default_rng(2)
    start_game(page, server, "bestiarium", {"board_size": 5}, ["human", "random"])
    named = set()
    for _ in human_turns(page, "bestiarium", rng, 6):
        labels = page.evaluate(COORDS, "#board .coord")
        names = page.eval_on_selector_all("#board .bx-cell", "ns => ns.map(n => n.dataset.cell)")
        assert len(names) == 61 and sorted(lab["text"] for lab in labels) == sorted(names)
        by_text = {lab["text"]: lab for lab in labels}
        for entry in log_texts(page):
            text = entry.split(": ", 1)[-1]
            if m := re.fullmatch(r"(?:grow )?([a-z]\d+)", text):
                named.add(m.group(1))
                assert_inside(page, by_text[m.group(1)], f'#board .bx-cell[data-cell="{m.group(1)}"]')
        hits = page.evaluate(ON_CIRCLE, ["#board .coord", "#board circle"])
        assert not hits, hits
    page.screenshot(path=str(artifacts / "coords_bestiarium.png"))
    assert len(named) >= 4, named


def test_beasty_borders_rows_and_columns_are_labelled_as_the_log_names_them(page, server, artifacts):
    """Beasty Borders' log writes "the steps-marker moves to c4": rows a-f are labelled at the left and columns
    1-N above, in line with the cell the log names (the marked one), outside every space."""
    rng = np.random.default_rng(4)
    start_game(page, server, "beasty_borders", {"variant": "main"}, ["human", "random"])
    checked = 0
    for _ in human_turns(page, "beasty_borders", rng, 4):
        moved = [m for e in log_texts(page) for m in re.findall(r"moves to ([a-f])(\d+)", e)]
        rows = {lab["text"]: lab for lab in page.evaluate(COORDS, "#board .coord-row")}
        cols = {lab["text"]: lab for lab in page.evaluate(COORDS, "#board .coord-col")}
        spaces = page.eval_on_selector_all("#board .bb-space", "ns => ns.map(n => n.dataset.cell)")
        assert {s[0] for s in spaces} == set(rows) and {s[1:] for s in spaces} == set(cols)
        if moved:
            row, col = moved[-1]
            box = page.evaluate(CELL_BOX, f'#board .bb-space[data-cell="{row}{col}"]')
            assert box["top"] < rows[row]["y"] < box["bottom"] and rows[row]["x"] < box["left"]
            assert box["left"] < cols[col]["x"] < box["right"] and cols[col]["y"] < box["top"]
            marker = page.evaluate(CELL_BOX, "#board .bb-marker")
            assert box["left"] < (marker["left"] + marker["right"]) / 2 < box["right"]
            checked += 1
        hits = page.evaluate(OVERLAP, [["#board .coord", "#board .bb-space"]])
        assert not hits, hits
    page.screenshot(path=str(artifacts / "coords_beasty_borders.png"))
    assert checked >= 3


# ----- a checkpoint with a very long file name (issue 31 item 11) ----------------------------------------------------
@pytest.fixture(scope="module")
def long_checkpoint_server(tmp_path_factory):
    """A server whose --checkpoint-dir holds Beasty Borders' shipped checkpoint under a 120-character name."""
    from pathlib import Path

    from tests.web.conftest import serve
    from training.play.web.app import create_app

    root = Path(__file__).resolve().parents[2]
    folder = tmp_path_factory.mktemp("long")
    # underscores, as run names often have: no line-break opportunity in the whole name
    stem = (
        "beasty_borders_alphazero_finetuned_from_the_shipped_checkpoint_with_a_very_long_run_name_"
        "seed_1_step_2000000_final"
    )
    stem += "x" * (120 - len(stem))
    assert len(stem) == 120
    for suffix in (".pt", ".json"):
        shutil.copyfile(root / "checkpoints" / "beasty_borders" / f"policy{suffix}", folder / f"{stem}{suffix}")
    app = create_app(checkpoint_roots=[folder], checkpoint_dirs=[folder])
    yield from serve(app)


def test_a_long_checkpoint_file_name_never_scrolls_the_page_sideways(page, long_checkpoint_server):
    """At 1280 x 800, with a listed checkpoint of a 120-character file name chosen for a seat, neither the new-game
    form nor the game it plays widens the page (scrollWidth <= 1280); the cut name keeps its full text as a title."""
    server = long_checkpoint_server
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server + "/#/")
    page.wait_for_selector("#game-select option", state="attached")
    page.select_option("#game-select", "beasty_borders")
    option = page.locator("#seat-1 option", has_text="step_2000000_final")
    assert option.count() == 1
    path = option.get_attribute("value")
    assert len(path.rsplit("/", 1)[-1]) == 123
    page.select_option("#seat-1", path)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    assert path in (option.get_attribute("title") or "")
    assert path in (page.get_attribute("#seat-1", "title") or "")
    page.select_option("#seat-0", "random")
    page.fill("#new-delay", "0")
    page.click("#start")
    page.wait_for_url("**/#/game/*")
    page.wait_for_function(f"() => Number({PLY}) >= 4 || {STATUS} === 'over'", timeout=60_000)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    cells = page.locator("#players td", has_text="step_2000000_final")
    assert cells.count() == 1 and path in (cells.first.get_attribute("title") or "")


def test_a_long_checkpoint_name_in_a_replay_or_tournament_file_never_scrolls_the_page_sideways(page, server, tmp_path):
    """The same 120-character checkpoint name as a seat of a saved game and as a policy of a saved tournament: the
    replay list, the game it replays and the tournament tables stay within 1280 px; cut names keep a title."""
    long = str(tmp_path / ("beasty_borders_" + "very_long_run_name_" * 6)[:117]) + ".pt"  # no break opportunity
    page.set_viewport_size({"width": 1280, "height": 800})
    records = [play_game("beasty_borders", {}, ["random", "greedy"], seed=s) for s in (1, 2)]
    path = save_records(records, tmp_path / "games.json")
    data = json.loads(path.read_text())
    for game in data:
        game["seats"] = [long, "greedy"]
        game["think_seconds"] = {long: 0.01, "greedy": 0.01}
        game["decisions"] = {long: 29, "greedy": 28}
    path.write_text(json.dumps(data))
    record = records[0]
    page.goto(server + "/#/replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay-link")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    assert long in page.get_attribute(".replay-link >> nth=0", "title")
    page.locator(".replay-link").first.click()
    page.wait_for_function("() => document.getElementById('game').dataset.mode === 'replay'")
    page.click("#btn-last")
    page.wait_for_function(f"() => {PLY} === '{len(record.actions)}'")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280

    result = run_tournament("beasty_borders", {}, ["random", "greedy"], games=2, seed=1, workers=1, progress=False)
    t = result.to_json()
    t["policies"] = [long, "greedy"]
    t["pairs"][0]["a"] = long
    t["seconds_per_move"] = {long: 1e-5, "greedy": 2e-5}
    tpath = tmp_path / "t.json"
    tpath.write_text(json.dumps(t))
    page.goto(server + "/#/tournament")
    page.set_input_files("#tournament-file", str(tpath))
    page.wait_for_selector("#tournament-heatmap")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    assert page.locator(f'#tournament-pairs td[title="{long}"]').count() == 1
    assert page.locator(f'#tournament-ratings td[title="{long}"]').count() == 1
    names = page.eval_on_selector_all("#tournament-heatmap .heat-name title", "ns => ns.map(n => n.textContent)")
    assert names.count(long) == 2


# ----- the same-screen hand-over (issue 39 item 6) -------------------------------------------------------------------
def test_the_hand_over_cover_hides_the_previous_players_cards(page, server, artifacts):
    """Two human seats of Boaring at one screen: after player_0 bids, the cover that hands the screen over lies on
    top of player_0's view (their hand and face-down card are still drawn under it), and not one pixel of that view
    shows through: the screenshot is the cover's colour everywhere but its button (a 92% cover failed this)."""
    from io import BytesIO

    from PIL import Image

    start_game(page, server, "boaring", {"num_players": 2}, ["human", "human"])
    page.wait_for_function(f"() => {STATUS} === 'your_turn'")
    page.locator(".bo-card.legal").first.click()
    page.wait_for_selector("#cover", state="visible")
    assert page.get_attribute("#game", "data-viewer") == "0"
    hidden = page.locator("#board .bo-card, #board .bo-committed")
    assert page.locator("#board .bo-committed").count() == 1 and hidden.count() >= 2  # drawn under the cover
    for i in range(hidden.count()):
        box = hidden.nth(i).bounding_box()
        top = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('#cover') !== null",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert top, f"card {i} is not under the cover"
    shot = Image.open(BytesIO(page.screenshot())).convert("RGB")
    page.screenshot(path=str(artifacts / "hand_over_cover.png"))
    b = page.locator("#cover-btn").bounding_box()
    pixels = np.asarray(shot).astype(int)
    mask = np.ones(pixels.shape[:2], bool)
    mask[int(b["y"]) - 2 : int(b["y"] + b["height"]) + 3, int(b["x"]) - 2 : int(b["x"] + b["width"]) + 3] = False
    outside = pixels[mask]
    colours = {tuple(c) for c in np.unique(outside, axis=0)}
    assert len(colours) == 1, f"{len(colours)} colours show around the cover's button: {sorted(colours)[:8]}"
    page.click("#cover-btn")
    page.wait_for_function(f"() => {STATUS} === 'your_turn' && document.getElementById('game').dataset.viewer === '1'")
    assert not page.is_visible("#cover")


def test_beasty_borders_signpost_covers_no_animal(page, server, artifacts, tmp_path):
    """The signpost (the top-left space of its tile) used to be drawn over the top of an animal placed on its space
    (issue 39 item 10): at the end of two games whose signpost space is filled (a4 in the top row, e7 inside), the
    signpost touches its space, but no animal, no coordinate label and no other space's animal."""
    records = [play_game("beasty_borders", {}, ["random", "greedy"], seed=s) for s in (1, 11)]
    path = save_records(records, tmp_path / "games.json")
    page.goto(server + "/#/replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay-link")
    for i, (record, cell) in enumerate(zip(records, ("a4", "e7"))):
        page.locator(".replay-link").nth(i).click()
        page.wait_for_function("() => document.getElementById('game').dataset.mode === 'replay'")
        page.click("#btn-last")
        page.wait_for_function(f"() => {PLY} === '{len(record.actions)}'")
        assert page.get_attribute("#board .bb-signpost", "data-cell") == cell
        assert page.locator(f'#board .bb-animal[data-cell="{cell}"]').count() == 1  # the space is filled
        hits = page.evaluate(OVERLAP, [["#board .bb-signpost", f'#board .bb-space[data-cell="{cell}"]']])
        assert hits, "the signpost no longer marks its space"
        hits = page.evaluate(
            OVERLAP, [["#board .bb-signpost", "#board .bb-animal"], ["#board .bb-signpost", "#board .coord"]]
        )
        assert not hits, hits
        page.screenshot(path=str(artifacts / f"signpost_{cell}.png"))
        page.go_back()
        page.wait_for_selector(".replay-link")


def test_replay_controls_wait_for_the_replay_they_move(page, server, tmp_path):
    """The replay buttons and arrow keys, used while a replay's first position is still on its way, change nothing and
    throw nothing (they used to read the position not yet loaded), and until it arrives the view carries nothing of
    the replay shown before (its data-mode and data-ply used to stay, so a click went to a replay not loaded)."""
    records = [play_game("beasty_borders", {}, ["random", "random"], seed=s) for s in (3, 4)]
    path = save_records(records, tmp_path / "games.json")
    page.goto(server + "/#/replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay-link")
    page.locator(".replay-link").nth(0).click()
    page.wait_for_function(f"() => {PLY} === '0'")
    page.click("#btn-last")
    page.wait_for_function(f"() => {PLY} === '{len(records[0].actions)}'")

    held = []  # the second replay's positions, held back until the controls have been used
    page.route("**/api/replays/*/1/*", lambda route: held.append(route))
    page.go_back()
    page.wait_for_selector(".replay-link")
    page.locator(".replay-link").nth(1).click()
    page.wait_for_function("() => location.hash.endsWith('/1')")
    while not held:
        page.wait_for_timeout(20)
    stale = page.evaluate("() => ({...document.getElementById('game').dataset})")
    assert set(stale.values()) == {""}, stale
    for button in ("#btn-last", "#btn-back", "#btn-fwd", "#btn-first"):
        page.click(button)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert len(held) == 1 and not page.console_errors, page.console_errors
    held[0].continue_()
    page.unroute("**/api/replays/*/1/*")
    page.wait_for_function(f"() => {PLY} === '0'")
    assert page.evaluate("() => document.getElementById('game').dataset.mode") == "replay"
    page.click("#btn-last")
    page.wait_for_function(f"() => {PLY} === '{len(records[1].actions)}'")
    assert len(records[0].actions) != len(records[1].actions)  # the last ply is the second replay's


# ----- the tournament heat map with realistic checkpoint names (issue 39 item 10) -------------------------------------
HEAT_TEXTS = """() => {
  const svg = document.getElementById('tournament-heatmap').getBoundingClientRect();
  const texts = [...document.querySelectorAll('#tournament-heatmap text')].map(n => {
    const r = n.getBoundingClientRect();
    return {text: n.firstChild ? n.firstChild.nodeValue : '', left: r.left, right: r.right, top: r.top,
            bottom: r.bottom, name: n.classList.contains('heat-name')};
  });
  return {svg: {left: svg.left, right: svg.right, top: svg.top, bottom: svg.bottom}, texts};
}"""


def assert_heat_map_texts_fit_and_stay_apart(page) -> list[dict]:
    """Every text of the heat map lies inside it, and no two overlap; returns them."""
    drawn = page.evaluate(HEAT_TEXTS)
    box, texts = drawn["svg"], drawn["texts"]
    for t in texts:
        assert (
            box["left"] - 0.5 <= t["left"]
            and t["right"] <= box["right"] + 0.5
            and box["top"] - 0.5 <= t["top"]
            and t["bottom"] <= box["bottom"] + 0.5
        ), f"{t['text']!r} is cut off: {t} / {box}"
    hits = [
        (s["text"], t["text"])
        for i, s in enumerate(texts)
        for t in texts[i + 1 :]
        if s["left"] < t["right"] and t["left"] < s["right"] and s["top"] < t["bottom"] and t["top"] < s["bottom"]
    ]
    assert not hits, hits
    return texts


def tournament_json(policies: list[str]) -> dict:
    """A tournament file over ``policies`` (two-player Beasty Borders, every pair played 10 times)."""
    pairs = [
        {
            "a": a,
            "b": b,
            "games": 10,
            "wins": 5 + i - j,
            "draws": 0,
            "losses": 5 - i + j,
            "win_share": (5 + i - j) / 10,
            "interval": [0.2, 0.8],
            "parity": 0.5,
            "mean_margin": 0.5 * (i - j),
        }
        for i, a in enumerate(policies)
        for j, b in enumerate(policies)
        if i < j
    ]
    return {
        "game": "beasty_borders",
        "options": {},
        "policies": policies,
        "games_per_pair": 10,
        "seed": 7,
        "pairs": pairs,
        "elo": [10.0 * i for i in range(len(policies))],
        "elo_se": [30.0] * len(policies),
        "seconds_per_move": {p: 0.001 for p in policies},
    }


def test_heat_map_labels_fit_and_stay_apart_with_checkpoint_names(page, server, artifacts, tmp_path):
    """Four policies named as training runs name them: every text of the heat map lies inside it (the row labels
    were cut off at its left edge), no two texts overlap (the column labels ran together), and the labels of
    two runs that differ only in the middle of their paths (seed1 / seed2) still differ."""
    policies = [
        "runs/beasty_borders_ppo_seed1/checkpoints/policy_step_2000000.pt",
        "runs/beasty_borders_ppo_seed2/checkpoints/policy_step_2000000.pt",
        "checkpoints/beasty_borders/policy.pt",
        "search:200",
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tournament_json(policies)))
    page.goto(server + "/#/tournament")
    page.set_input_files("#tournament-file", str(path))
    page.wait_for_selector("#tournament-heatmap")
    page.locator("#tournament-heatmap").screenshot(path=str(artifacts / "heat_map_names.png"))
    texts = assert_heat_map_texts_fit_and_stay_apart(page)
    rows = [t["text"] for t in texts if t["name"] and "seed" in t["text"]]
    assert any("seed1" in r for r in rows) and any("seed2" in r for r in rows), rows
    names = page.eval_on_selector_all("#tournament-heatmap .heat-name title", "ns => ns.map(n => n.textContent)")
    assert sorted(set(names)) == sorted(policies) and len(names) == 2 * len(policies)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280


# ----- the searches' warm-up (issue 39 item 1's "or say so on the page") ----------------------------------------------
def test_the_page_says_the_first_search_move_compiles_while_the_catalogue_says_so(page, server):
    """While /api/catalogue answers search_ready false (here rewritten by the browser: the test server's own
    warm-up may be over), the form says a search seat's first move may take half a minute, and a search bot's
    "thinking" line says so; once the catalogue (asked again every 3 s) says true, the note goes."""
    ready = {"value": False}

    def catalogue(route):
        body = route.fetch().json()
        body["search_ready"] = ready["value"]
        route.fulfill(json=body)

    page.route("**/api/catalogue", catalogue)
    page.goto(server + "/#/")
    page.wait_for_selector("#seat-1 option", state="attached")
    page.select_option("#game-select", "bestiarium")
    page.select_option("#opt-board_size", label="5")
    page.select_option("#seat-1", "random")
    assert not page.is_visible("#search-note")
    page.select_option("#seat-1", "search:200")
    assert page.is_visible("#search-note") and "half a minute" in page.inner_text("#search-note")

    held = []
    page.route("**/api/games/*/step", lambda route: held.append(route))  # hold the bot's move: read the status
    page.select_option("#seat-0", "search:200")
    page.fill("#new-delay", "0")
    page.click("#start")
    page.wait_for_url("**/#/game/*")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('thinking')")
    assert "compiling the searches" in page.inner_text("#status")
    while not held:  # the held request reaches the handler while Playwright waits
        page.wait_for_timeout(20)
    page.unroute("**/api/games/*/step")
    held[0].continue_()
    page.wait_for_function(f"() => Number({PLY}) >= 1")

    page.goto(server + "/#/")
    page.wait_for_selector("#seat-1 option", state="attached")
    assert page.is_visible("#search-note")
    ready["value"] = True
    page.wait_for_selector("#search-note", state="hidden", timeout=10_000)

"""Memory bounded whatever the run's length (issue 27 item 1): an Outcome keeps a run's first
100,000 command records and first 10,000 messages, as `pp5 run --report json`, and counts
the rest; each run has its own caps."""

import pp5

MAX_RECORDS = 100_000
MAX_MESSAGES = 10_000

# A command that sends status messages for ever.
SPAM = ".command SPAM() -> spam\nspam: sendstatus\n      jump spam\n"


def test_command_records_past_the_cap_are_counted():
    board = pp5.Board()
    out = board.run("SETENABS\n" * (MAX_RECORDS + 50))
    assert out.ok, out
    assert len(out.commands) == MAX_RECORDS
    assert out.commands_not_kept == 50
    assert out.commands[-1].index - out.commands[0].index == MAX_RECORDS - 1
    assert out.bs_commands_not_kept == 0 and out.sent_not_kept == 0
    # The next run has caps of its own, and only its own commands.
    out = board.run("CLRENABS\nSETENABS\n")
    assert [c.name for c in out.commands] == ["CLRENABS", "SETENABS"]
    assert out.commands_not_kept == 0


def test_endless_messages_are_counted_past_the_cap():
    board = pp5.Board([pp5.microcode_source("standard"), SPAM])
    out = board.run("SETENABS\nSPAM\n", max_cycles=800_000)
    assert out.stop == "max_cycles"
    assert len(out.sent) == MAX_MESSAGES
    assert out.sent_not_kept > 1000
    assert all(m.kind == "STATUS" for m in out.sent)
    # The SPAM command never ends: its record is the open one, after SETENABS.
    assert [c.name for c in out.commands] == ["SETENABS", "SPAM"]
    first = out.sent_not_kept + MAX_MESSAGES
    assert len(board.sent) == MAX_MESSAGES and board.sent_not_kept == first - MAX_MESSAGES
    # It goes on sending in the next run, which keeps its own first 10,000.
    out = board.run(max_cycles=800_000)
    assert len(out.sent) == MAX_MESSAGES and out.sent_not_kept > 1000
    assert out.sent[0].end >= out.start_cycle
    assert out.commands == []  # SPAM began before this run
    assert board.sent_not_kept == first + MAX_MESSAGES + out.sent_not_kept - MAX_MESSAGES


MAX_MESSAGE_WORDS = 1 << 20


def test_kept_messages_are_bounded_in_words():
    """Issue 38 item 4: the cap counted messages, so 16,385-word BS_TRANSMIT replies kept
    hundreds of MB; the words of the kept messages are bounded too (4 MiB), and the rest are
    counted."""
    n = 70
    board = pp5.Board()
    out = board.run("message bs\nBS_TRANSMIT 0 0 128 0x40\n" * n)
    assert out.ok, out
    kept = MAX_MESSAGE_WORDS // 16_385
    assert len(out.sent) == kept and out.sent_not_kept == n - kept
    assert sum(len(m.words) for m in out.sent) <= MAX_MESSAGE_WORDS
    assert len(board.sent) == kept and board.sent_not_kept == n - kept

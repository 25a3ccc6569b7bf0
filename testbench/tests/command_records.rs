//! `Sim::take_ended_commands`: a long run (`pp5 render`) reads the command records as they end
//! and drops them; what it reads, followed by what stays, is the record of the same run that
//! never took any.

use pp5_testbench::Testbench;

/// Many short commands, one of them long (a multiply), so that records end while others run.
const STREAM: &str = "\
SETENABS
MEMplusMEM 0 8 16 8 8
MEMplusMEM 24 0 8 8 8
CLEAR 40 16
MEMplusMEM 0 8 16 8 8
SCAIntoMEM_S1 60 12 1234
MEMplusMEM 24 0 8 8 8
";

#[test]
fn records_taken_while_running_equal_the_records_kept() {
    let stream_text = STREAM.repeat(20);
    let mut whole = Testbench::standard();
    let s = whole.parse(&stream_text);
    whole.run(&s, 1_000_000);

    let mut taking = Testbench::standard();
    let mut taken = Vec::new();
    let mut calls = 0;
    taking.sim.queue_stream(&s);
    while taking.sim.tick().is_none() {
        if taking.sim.board.cycle.is_multiple_of(37) {
            taken.extend(taking.sim.take_ended_commands());
            calls += 1;
        }
    }
    assert!(calls > 10);
    // At most the open command stays between takes.
    taken.extend(taking.sim.take_ended_commands());
    assert!(taking.sim.commands.is_empty());
    assert_eq!(taken.len(), whole.sim.commands.len());
    for (a, b) in taken.iter().zip(&whole.sim.commands) {
        assert_eq!(
            (a.index, &a.name, a.start, a.cycles, a.causes),
            (b.index, &b.name, b.start, b.cycles, b.causes)
        );
    }
}

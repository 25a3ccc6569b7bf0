//! Breakpoints: stop the run when the IGC executes a given microinstruction for the N-th time
//! (`pp5 run --until LABEL[+OFFSET][#N]`), or at a given cycle (`--until-cycle C`). The engine
//! asks after each cycle whether one was reached and stops with
//! [`super::StopReason::Breakpoint`].

use super::observer::{Cx, Observer};
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::IgcState;

/// Where to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Until {
    /// The `hits`-th cycle in which the IGC executes the microinstruction at `pc`; `name`
    /// says it as the user did (`MEMplusMEM+3#2`).
    Uinst { pc: u16, hits: u64, name: String },
    /// After cycle `cycle - 1`: the board's cycle counter reads `cycle`.
    Cycle(u64),
    /// The next cycle in which the IGC executes a microinstruction (a single step).
    NextUinst,
}

/// A breakpoint and how close the run is to it.
#[derive(Clone, Debug)]
pub struct Breakpoint {
    pub until: Until,
    /// Executions of the microinstruction so far.
    pub hits: u64,
    /// The IGC's state at the start of the next cycle.
    state: IgcState,
    reached: Option<String>,
}

impl Breakpoint {
    /// A breakpoint on a board whose IGC is now in `state`.
    pub fn new(until: Until, state: IgcState) -> Breakpoint {
        Breakpoint {
            until,
            hits: 0,
            state,
            reached: None,
        }
    }

    /// The breakpoint was reached: what to tell the user.
    pub fn reached(&self) -> Option<&str> {
        self.reached.as_deref()
    }

    /// What to tell the user when the run ended without reaching it.
    pub fn missed(&self) -> String {
        match &self.until {
            Until::Uinst { name, hits, .. } => {
                let times = match self.hits {
                    1 => "once".to_string(),
                    n => format!("{n} times"),
                };
                if self.hits == 0 {
                    format!("the breakpoint {name} was never reached: the IGC never executed it")
                } else {
                    format!(
                        "the breakpoint {name}#{hits} was never reached: the IGC executed {name} {times}"
                    )
                }
            }
            Until::Cycle(c) => format!("the breakpoint at cycle {c} was never reached"),
            Until::NextUinst => "the IGC executed no microinstruction".to_string(),
        }
    }

    /// A breakpoint on a cycle is reached before any cycle runs when the board is there
    /// already.
    pub fn check_cycle(&mut self, cycle: u64) {
        if let Until::Cycle(c) = self.until {
            if cycle >= c && self.reached.is_none() {
                self.reached = Some(format!("breakpoint: cycle {c} reached"));
            }
        }
    }
}

impl Observer for Breakpoint {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let igc = &cx.board.igc;
        let executed = matches!(
            self.state,
            IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx
        ) && cx.igc_cause == Cause::Executing;
        if executed && self.until == Until::NextUinst {
            self.reached = Some(format!(
                "breakpoint: the IGC executed PC {} in cycle {}",
                pp5_rtl::igc::store::pc_text(igc.last_pc),
                cx.cycle
            ));
        }
        if let Until::Uinst { pc, hits, name } = &self.until {
            if executed && igc.last_pc == *pc {
                self.hits += 1;
                if self.hits == *hits {
                    let time = if *hits == 1 {
                        String::new()
                    } else {
                        format!(" for the {} time", ordinal(*hits))
                    };
                    self.reached = Some(format!(
                        "breakpoint: the IGC executed {name} (PC {}){time} in cycle {}",
                        pp5_rtl::igc::store::pc_text(*pc),
                        cx.cycle
                    ));
                }
            }
        }
        self.state = igc.state;
        self.check_cycle(cx.cycle + 1);
    }

    fn ring_reset(&mut self, _at: u64) {
        self.state = IgcState::RMode;
    }
}

/// `2nd`, `3rd`, `11th`, ...
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }
}

//! Run summaries: the human table `pp5 run` prints, and JSON / CSV for scripts.

use crate::engine::{CommandRecord, Sim, StopReason};
use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::status::{bit_name, ERROR_MASK};
use serde::Serialize;
use std::fmt::Write;

/// Everything a timing study needs from one run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub stop: StopReason,
    /// Total 40 MHz cycles simulated.
    pub cycles: u64,
    /// Hardware time in ns.
    pub time_ns: f64,
    /// Cycles spent loading the microcode (None without a boot).
    pub boot_cycles: Option<u64>,
    /// Cycles after the boot.
    pub user_cycles: u64,
    /// Microcoded commands taken after the boot.
    pub commands: Vec<CommandRecord>,
    /// Cycles by command name (after the boot): name, count, total cycles.
    pub by_name: Vec<(String, u64, u64)>,
    pub status: u32,
    pub error_bits: Vec<String>,
    pub diagnostics: Vec<crate::engine::Diagnostic>,
    pub dropped_diagnostics: u64,
    /// Ring messages the board sent (error messages for now): cycle, words.
    pub sent: Vec<(u64, [u32; 3])>,
}

impl Summary {
    /// Collect the summary of a finished simulation.
    pub fn of(sim: &Sim, stop: &StopReason) -> Summary {
        let cycles = sim.board.cycle;
        let boot = sim.boot_end.map(|c| c + 1);
        let commands: Vec<CommandRecord> = sim.user_commands().cloned().collect();
        let mut by_name: Vec<(String, u64, u64)> = Vec::new();
        for c in &commands {
            match by_name.iter_mut().find(|e| e.0 == c.name) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += c.cycles;
                }
                None => by_name.push((c.name.clone(), 1, c.cycles)),
            }
        }
        let status = sim.board.status();
        let error_bits = (24..31)
            .filter(|b| status & ERROR_MASK & (1 << b) != 0)
            .map(|b| format!("{b}: {}", bit_name(b)))
            .collect();
        Summary {
            stop: stop.clone(),
            cycles,
            time_ns: (cycles * CYCLE_PS) as f64 / 1000.0,
            boot_cycles: boot,
            user_cycles: cycles - boot.unwrap_or(0).min(cycles),
            commands,
            by_name,
            status,
            error_bits,
            diagnostics: sim.diagnostics.clone(),
            dropped_diagnostics: sim.dropped_diagnostics,
            sent: sim.tx.iter().map(|m| (m.cycle, m.words)).collect(),
        }
    }

    /// Whether the run ended cleanly (done, no error bits, no fault).
    pub fn clean(&self) -> bool {
        self.stop == StopReason::Done && self.error_bits.is_empty()
    }

    /// The table `pp5 run` prints. At most `max_rows` command rows (0 = all).
    pub fn table(&self, max_rows: usize) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "stopped: {}", stop_text(&self.stop));
        let _ = writeln!(
            s,
            "cycles:  {} at 40 MHz = {:.3} us{}",
            self.cycles,
            self.time_ns / 1000.0,
            match self.boot_cycles {
                Some(b) => format!(" (microcode boot {b}, stream {})", self.user_cycles),
                None => String::new(),
            }
        );
        let _ = writeln!(
            s,
            "status:  {:#010x}{}",
            self.status,
            if self.error_bits.is_empty() {
                String::new()
            } else {
                format!("  errors: {}", self.error_bits.join(", "))
            }
        );
        if !self.commands.is_empty() {
            let _ = writeln!(s, "\n{:>6}  {:>10}  {:>7}  command", "#", "start", "cycles");
            let n = if max_rows == 0 {
                self.commands.len()
            } else {
                max_rows.min(self.commands.len())
            };
            for c in &self.commands[..n] {
                let ops: Vec<String> = c.operands.iter().map(|o| o.to_string()).collect();
                let _ = writeln!(
                    s,
                    "{:>6}  {:>10}  {:>7}  {}({})",
                    c.index,
                    c.start,
                    c.cycles,
                    c.name,
                    ops.join(", ")
                );
            }
            if n < self.commands.len() {
                let _ = writeln!(
                    s,
                    "   ... {} more (use --report json or csv for all)",
                    self.commands.len() - n
                );
            }
            let _ = writeln!(s, "\n{:<16} {:>8} {:>10}", "by command", "count", "cycles");
            for (name, count, cyc) in &self.by_name {
                let _ = writeln!(s, "{:<16} {:>8} {:>10}", name, count, cyc);
            }
        }
        if !self.sent.is_empty() {
            let _ = writeln!(s, "\nRing messages sent:");
            for (c, w) in &self.sent {
                let _ = writeln!(
                    s,
                    "  cycle {c}: to {:#x} id {:#010x} status {:#010x}",
                    w[0], w[1], w[2]
                );
            }
        }
        if !self.diagnostics.is_empty() {
            let _ = writeln!(s, "\ndiagnostics:");
            for d in &self.diagnostics {
                let _ = writeln!(s, "  cycle {}: {}: {}", d.cycle, d.level, d.msg);
            }
            if self.dropped_diagnostics > 0 {
                let _ = writeln!(s, "  ... and {} more", self.dropped_diagnostics);
            }
        }
        s
    }

    /// JSON for scripts.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// CSV of the commands: index,name,operands,start,cycles.
    pub fn csv(&self) -> String {
        let mut s = String::from("index,name,operands,start,cycles\n");
        for c in &self.commands {
            let ops: Vec<String> = c.operands.iter().map(|o| o.to_string()).collect();
            let _ = writeln!(
                s,
                "{},{},{},{},{}",
                c.index,
                c.name,
                ops.join(" "),
                c.start,
                c.cycles
            );
        }
        s
    }
}

/// A stop reason in words.
pub fn stop_text(s: &StopReason) -> String {
    match s {
        StopReason::Done => "stream finished, board idle".into(),
        StopReason::MaxCycles => "cycle limit reached before the stream finished".into(),
        StopReason::Stuck(why) => format!("IGC stuck: {why}"),
        StopReason::Interrupted => "interrupted".into(),
    }
}

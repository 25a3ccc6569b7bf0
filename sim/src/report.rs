//! Run summaries: the human table `pp5 run` prints, and JSON / CSV for scripts.

use crate::engine::{
    BlockCauses, BsCommandRecord, CauseCounts, CommandRecord, NameTally, Sim, StopReason, Tally,
};
use pp5_rtl::cause::Cause;
use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::status::{bit_name, ERROR_MASK};
use serde::Serialize;
use std::fmt::Write;
use std::io;

/// Everything a timing study needs from one run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub stop: StopReason,
    /// Where a run stopped at a breakpoint or watchpoint stopped: the microinstruction next,
    /// its source line, the IGC's registers, the CALL backtrace (set by `pp5 run`, which
    /// has the microcode's sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_report: Option<crate::microcode_view::StopReport>,
    /// Total 40 MHz cycles simulated.
    pub cycles: u64,
    /// Hardware time in ns.
    pub time_ns: f64,
    /// Cycles spent loading the microcode (None without a boot).
    pub boot_cycles: Option<u64>,
    /// Cycles after the boot.
    pub user_cycles: u64,
    /// Microcoded commands taken after the boot (with [`crate::records::Keep::First`], the first ones).
    pub commands: Vec<CommandRecord>,
    /// User commands whose records were not kept ([`crate::records::Keep::First`]): IGC, BS port.
    pub not_kept: [u64; 2],
    /// Every command after the boot by name: count, cycles, cycles waited.
    pub by_name: Vec<NameTally>,
    pub status: u32,
    pub error_bits: Vec<String>,
    pub diagnostics: Vec<crate::engine::Diagnostic>,
    pub dropped_diagnostics: u64,
    /// Ring messages the board sent, in the order their last word went out (the ones the run
    /// kept: [`crate::engine::SimOptions::keep_messages`]).
    pub sent: Vec<SentMessage>,
    /// Messages sent but not kept (past the cap).
    #[serde(skip_serializing_if = "is_zero")]
    pub sent_not_kept: u64,
    /// BS port commands.
    pub bs_commands: Vec<BsCommandRecord>,
    /// Every cycle of each block by cause.
    pub causes: BlockCauses,
    /// Cycles at which a Ring reset happened.
    pub resets: Vec<u64>,
    /// Backing-store transfers.
    pub transfers: Vec<crate::engine::TransferRecord>,
    /// The microcode profile (`--profile`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::microcode_view::profile::Profile>,
    /// The annotated listing (`--annotate`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotate: Option<crate::microcode_view::annotate::Annotation>,
}

/// A message the board sent, as the report shows it.
#[derive(Clone, Debug, Serialize)]
pub struct SentMessage {
    /// The port that sent it (`igc` or `bs`).
    pub port: &'static str,
    /// STATUS, ERROR or DATA.
    pub kind: &'static str,
    /// Cycles of its first and last word.
    pub start: u64,
    pub end: u64,
    /// Destination word.
    pub dest: u32,
    /// Words, destination included.
    pub len: usize,
    /// For status and error messages: the ID word and the status word.
    pub id: Option<u32>,
    pub status: Option<u32>,
}

impl SentMessage {
    fn of(m: &pp5_rtl::renderer::OutMessage) -> SentMessage {
        let small = m.kind != pp5_rtl::renderer::MsgKind::Data;
        SentMessage {
            port: m.port.name(),
            kind: m.kind.name(),
            start: m.start,
            end: m.end,
            dest: m.dest(),
            len: m.words.len(),
            id: m.words.get(1).copied().filter(|_| small),
            status: m.words.get(2).copied().filter(|_| small),
        }
    }
}

impl Summary {
    /// Collect the summary of a finished simulation (its records copied).
    pub fn of(sim: &Sim, stop: &StopReason) -> Summary {
        let commands = sim.user_commands().cloned().collect();
        let tally = Summary::tally(sim);
        Summary::with_records(sim, stop, commands, sim.bs_commands.to_vec(), tally)
    }

    /// [`Summary::of`], moving the command records out of `sim` instead of copying them (a
    /// long run's records are most of its memory).
    pub fn take(sim: &mut Sim, stop: &StopReason) -> Summary {
        let tally = Summary::tally(sim);
        let mut commands = sim.commands.take_records();
        commands.retain(|c| !c.boot);
        let bs = sim.bs_commands.take_records();
        Summary::with_records(sim, stop, commands, bs, tally)
    }

    /// The per-name totals: the commands that ended, and a stuck or interrupted run's last
    /// one, still open (its cycles so far).
    fn tally(sim: &Sim) -> Tally {
        let mut tally = sim.commands.tally.clone();
        if let Some(open) = sim.open_command() {
            if !open.boot {
                tally.add(open);
            }
        }
        tally
    }

    fn with_records(
        sim: &Sim,
        stop: &StopReason,
        commands: Vec<CommandRecord>,
        bs_commands: Vec<BsCommandRecord>,
        tally: Tally,
    ) -> Summary {
        let cycles = sim.board.cycle;
        let boot = sim.boot_cycles;
        let status = sim.board.status();
        let error_bits = (0..32)
            .filter(|b| status & ERROR_MASK & (1 << b) != 0)
            .map(|b| format!("{b}: {}", bit_name(b)))
            .collect();
        Summary {
            stop: stop.clone(),
            stop_report: None,
            cycles,
            time_ns: (cycles * CYCLE_PS) as f64 / 1000.0,
            boot_cycles: boot,
            user_cycles: cycles - boot.unwrap_or(0).min(cycles),
            commands,
            not_kept: [sim.commands.not_kept(), sim.bs_commands.not_kept()],
            by_name: tally.names().to_vec(),
            status,
            error_bits,
            diagnostics: sim.diagnostics.to_vec(),
            dropped_diagnostics: sim.diagnostics.dropped,
            sent: sim.tx.iter().map(SentMessage::of).collect(),
            sent_not_kept: sim.tx.not_kept(),
            bs_commands,
            causes: sim.causes(),
            resets: sim.ring.resets_done.clone(),
            transfers: sim.transfers.to_vec(),
            profile: None,
            annotate: None,
        }
    }

    /// Whether the run ended cleanly (done, no error bits, no fault).
    pub fn clean(&self) -> bool {
        self.stop == StopReason::Done && self.error_bits.is_empty()
    }

    /// The table `pp5 run` prints. At most `max_rows` command rows (0 = all).
    pub fn table(&self, max_rows: usize) -> String {
        let mut s = String::new();
        self.table_header(&mut s);
        self.table_commands(&mut s, max_rows);
        self.table_bs_commands(&mut s, max_rows);
        self.table_transfers(&mut s);
        self.table_causes(&mut s);
        self.table_sent(&mut s);
        self.table_resets(&mut s, max_rows);
        self.table_diagnostics(&mut s);
        s
    }

    /// The stop reason, the cycle count and the status word.
    fn table_header(&self, s: &mut String) {
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
    }

    /// The command rows and the by-command tally.
    fn table_commands(&self, s: &mut String, max_rows: usize) {
        if !self.commands.is_empty() {
            let _ = writeln!(
                s,
                "\n{:>6}  {:>10}  {:>7}  {:>7}  command",
                "#", "start", "cycles", "waited"
            );
            let n = shown(max_rows, self.commands.len());
            for c in &self.commands[..n] {
                let ops: Vec<String> = c.operands.iter().map(|o| o.to_string()).collect();
                let _ = writeln!(
                    s,
                    "{:>6}  {:>10}  {:>7}  {:>7}  {}({}){}",
                    c.index,
                    c.start,
                    c.cycles,
                    c.causes.waited(),
                    c.name,
                    ops.join(", "),
                    wait_cause(&c.causes)
                );
            }
            let more = self.commands.len() - n + self.not_kept[0] as usize;
            if more > 0 {
                let _ = writeln!(
                    s,
                    "   ... {more} more (--rows 0, --report json or csv list the first {} of each port)",
                    crate::records::MAX_REPORT_RECORDS
                );
            }
            let _ = writeln!(
                s,
                "\n{:<16} {:>8} {:>10} {:>10}",
                "by command", "count", "cycles", "waited"
            );
            for t in &self.by_name {
                let _ = writeln!(
                    s,
                    "{:<16} {:>8} {:>10} {:>10}",
                    t.name, t.count, t.cycles, t.waited
                );
            }
        }
    }

    /// The BS command rows.
    fn table_bs_commands(&self, s: &mut String, max_rows: usize) {
        if !self.bs_commands.is_empty() {
            let _ = writeln!(
                s,
                "\n{:>6}  {:>10}  {:>7}  {:>9}  {:>9}  {:>9}  BS command",
                "#", "start", "cycles", "executing", "sem_wait", "tx_hold"
            );
            let n = shown(max_rows, self.bs_commands.len());
            for c in &self.bs_commands[..n] {
                let _ = writeln!(
                    s,
                    "{:>6}  {:>10}  {:>7}  {:>9}  {:>9}  {:>9}  {} ({:#010x})",
                    c.index,
                    c.start,
                    c.cycles,
                    c.causes.get(Cause::Executing),
                    c.causes.get(Cause::SemWait),
                    c.causes.get(Cause::TxHold),
                    c.name,
                    c.word
                );
            }
            let more = self.bs_commands.len() - n + self.not_kept[1] as usize;
            if more > 0 {
                let _ = writeln!(s, "   ... {more} more");
            }
        }
    }

    /// The BS transfers.
    fn table_transfers(&self, s: &mut String) {
        if !self.transfers.is_empty() {
            let _ = writeln!(s, "\ntransfers:");
            for t in &self.transfers {
                let _ = match t.end {
                    Some(e) => writeln!(
                        s,
                        "  BS{} sector {:>3}: cycles {}..{}",
                        t.dir, t.sector, t.start, e
                    ),
                    None => writeln!(
                        s,
                        "  BS{} sector {:>3}: from cycle {}, not finished",
                        t.dir, t.sector, t.start
                    ),
                };
            }
        }
    }

    /// The cycles by cause per block and their overlap.
    fn table_causes(&self, s: &mut String) {
        let _ = writeln!(s, "\ncycles by cause:");
        let _ = write!(s, "{:<10}", "block");
        for c in Cause::ALL {
            let _ = write!(s, " {:>14}", c.name());
        }
        let _ = writeln!(s);
        for (name, cc) in self.block_causes() {
            let _ = write!(s, "{name:<10}");
            for c in Cause::ALL {
                let _ = write!(s, " {:>14}", cc.get(c));
            }
            let _ = writeln!(s);
        }
        let o = &self.causes.overlap;
        if o.igc_and_transfer + o.igc_and_bs_port + o.transfer_and_bs_port > 0 {
            let _ = writeln!(
                s,
                "overlap: IGC with transfer {}, IGC with BS port {}, transfer with BS port {} cycles",
                o.igc_and_transfer, o.igc_and_bs_port, o.transfer_and_bs_port
            );
        }
    }

    /// The ring messages sent.
    fn table_sent(&self, s: &mut String) {
        if !self.sent.is_empty() {
            let _ = writeln!(s, "\nRing messages sent:");
            for m in self.sent.iter().take(MAX_TABLE_MESSAGES) {
                let _ = match (m.id, m.status) {
                    (Some(id), Some(st)) => writeln!(
                        s,
                        "  cycles {}..{}: {} {} to {:#x}: id {id:#010x} status {st:#010x}",
                        m.start, m.end, m.port, m.kind, m.dest
                    ),
                    _ => writeln!(
                        s,
                        "  cycles {}..{}: {} {} to {:#x}: {} words",
                        m.start, m.end, m.port, m.kind, m.dest, m.len
                    ),
                };
            }
        }
        let more = self.sent.len().saturating_sub(MAX_TABLE_MESSAGES) as u64 + self.sent_not_kept;
        if more > 0 {
            let _ = writeln!(s, "  and {more} more");
        }
    }

    /// What a JSON or CSV report leaves out, for a note beside it (`None`: nothing): the
    /// command records past the kept ones ([`crate::records::MAX_REPORT_RECORDS`] per port
    /// for `pp5 run --report json|csv`; their cycles are in the per-name totals and the
    /// causes) and the messages past the message caps ([`crate::records::MAX_REPORT_MESSAGES`],
    /// [`crate::records::MAX_REPORT_MESSAGE_WORDS`]).
    pub fn left_out(&self) -> Option<String> {
        let mut parts = Vec::new();
        for (n, port) in self.not_kept.iter().zip(["IGC", "BS port"]) {
            if *n > 0 {
                parts.push(format!("the records of {n} more {port} commands"));
            }
        }
        if self.sent_not_kept > 0 {
            parts.push(format!("{} more sent messages", self.sent_not_kept));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "the report leaves out {} (they are counted in the totals)",
                parts.join(" and ")
            )
        })
    }

    /// The ring resets.
    fn table_resets(&self, s: &mut String, max_rows: usize) {
        if !self.resets.is_empty() {
            let n = shown(max_rows, self.resets.len());
            let _ = write!(s, "\nRing resets at cycles {:?}", &self.resets[..n]);
            let _ = match self.resets.len() - n {
                0 => writeln!(s),
                more => writeln!(s, " and {more} more"),
            };
        }
    }

    /// The diagnostics.
    fn table_diagnostics(&self, s: &mut String) {
        if !self.diagnostics.is_empty() {
            let _ = writeln!(s, "\ndiagnostics:");
            for d in &self.diagnostics {
                let _ = writeln!(s, "  cycle {}: {}: {}", d.cycle, d.level, d.msg);
            }
            if self.dropped_diagnostics > 0 {
                let _ = writeln!(s, "  ... and {} more", self.dropped_diagnostics);
            }
        }
    }

    /// JSON for scripts.
    pub fn json(&self) -> String {
        let mut v = Vec::new();
        match self.write_json(&mut v) {
            Ok(()) => String::from_utf8_lossy(&v).into_owned(),
            Err(e) => format!("{{\"error\": \"{e}\"}}"),
        }
    }

    /// [`Summary::json`] written to `w` as it is made (a long run's JSON is never held whole).
    /// An error of `w` comes back as it was (a closed pipe stays a
    /// [`io::ErrorKind::BrokenPipe`]), not wrapped in serde's error.
    pub fn write_json(&self, w: impl io::Write) -> io::Result<()> {
        serde_json::to_writer_pretty(w, self).map_err(io::Error::from)
    }

    /// The per-block cause counts, named.
    pub fn block_causes(&self) -> [(&'static str, CauseCounts); 4] {
        [
            ("igc", self.causes.igc),
            ("bs_port", self.causes.bs_port),
            ("transfer", self.causes.transfer),
            ("igc_tx", self.causes.igc_tx),
        ]
    }

    /// CSV: one row per command of either port (`port` = igc or bs; for IGC commands the
    /// operands), with its cycles by cause, then one `total` row per block.
    pub fn csv(&self) -> String {
        let mut v = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = self.write_csv(&mut v);
        String::from_utf8_lossy(&v).into_owned()
    }

    /// [`Summary::csv`] written to `w` row by row.
    pub fn write_csv(&self, mut w: impl io::Write) -> io::Result<()> {
        write!(w, "port,index,name,operands,start,cycles")?;
        for c in Cause::ALL {
            write!(w, ",{}", c.name())?;
        }
        writeln!(w)?;
        let causes = |w: &mut dyn io::Write, cc: &CauseCounts| -> io::Result<()> {
            for c in Cause::ALL {
                write!(w, ",{}", cc.get(c))?;
            }
            writeln!(w)
        };
        for c in &self.commands {
            write!(w, "igc,{},{},", c.index, c.name)?;
            for (i, o) in c.operands.iter().enumerate() {
                write!(w, "{}{o}", if i == 0 { "" } else { " " })?;
            }
            write!(w, ",{},{}", c.start, c.cycles)?;
            causes(&mut w, &c.causes)?;
        }
        for c in &self.bs_commands {
            write!(
                w,
                "bs,{},{},{:#010x},{},{}",
                c.index, c.name, c.word, c.start, c.cycles
            )?;
            causes(&mut w, &c.causes)?;
        }
        for (name, cc) in self.block_causes() {
            write!(w, "{name},total,,,0,{}", cc.total())?;
            causes(&mut w, &cc)?;
        }
        Ok(())
    }
}

/// How many of `len` rows a table of at most `max_rows` rows (0 = all) shows.
/// Messages the table lists (the JSON report lists every one kept).
pub const MAX_TABLE_MESSAGES: usize = 1000;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn shown(max_rows: usize, len: usize) -> usize {
    if max_rows == 0 {
        len
    } else {
        max_rows.min(len)
    }
}

/// `  [waited on ...]` naming the causes of a command's waits, or nothing.
fn wait_cause(c: &CauseCounts) -> String {
    let names: Vec<&str> = [Cause::SemWait, Cause::XferStall, Cause::TxHold]
        .into_iter()
        .filter(|&k| c.get(k) > 0)
        .map(Cause::name)
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("  [{}]", names.join(", "))
    }
}

/// A stop reason in words.
pub fn stop_text(s: &StopReason) -> String {
    match s {
        StopReason::Done => "stream finished, board idle".into(),
        StopReason::MaxCycles => "cycle limit reached before the stream finished".into(),
        StopReason::Stuck(why) => format!("IGC stuck: {why}"),
        StopReason::Deadlock { since, waits } => {
            let mut t = format!("deadlock: no block can make progress since cycle {since}");
            for w in waits {
                t.push_str(&format!("\n  {w}"));
            }
            t
        }
        StopReason::Interrupted => "interrupted".into(),
        StopReason::Breakpoint(what) => what.clone(),
    }
}

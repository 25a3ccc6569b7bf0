//! [`Recorder`]: a tracer that keeps every signal it is shown, for tests and for reading a
//! block's signals by name (the debugger's watchpoints, the Python module's `signals`).

use super::{mask, Tracer};

/// A tracer that records the signals it is shown as `(path, width, value)`; used by tests
/// and by the simulator's `--peek`-style reports. Text signals have width 0.
#[derive(Debug, Default, Clone)]
pub struct Recorder {
    scope: Vec<String>,
    /// Every signal seen, in visiting order: hierarchical name, width, numeric value, text.
    pub signals: Vec<(String, u32, u64, String)>,
}

impl Recorder {
    fn path(&self, name: &str) -> String {
        let mut p = self.scope.join(".");
        if !p.is_empty() {
            p.push('.');
        }
        p.push_str(name);
        p
    }

    /// The numeric value of the signal with this hierarchical name, if it was recorded.
    pub fn value(&self, path: &str) -> Option<u64> {
        self.signals.iter().find(|s| s.0 == path).map(|s| s.2)
    }

    /// The text value of the string signal with this hierarchical name.
    pub fn text_value(&self, path: &str) -> Option<&str> {
        self.signals
            .iter()
            .find(|s| s.0 == path)
            .map(|s| s.3.as_str())
    }
}

impl Tracer for Recorder {
    fn push_scope(&mut self, name: &str) {
        self.scope.push(name.to_string());
    }
    fn pop_scope(&mut self) {
        self.scope.pop();
    }
    fn bits(&mut self, name: &str, width: u32, value: u64) {
        let p = self.path(name);
        self.signals
            .push((p, width, value & mask(width), String::new()));
    }
    fn text(&mut self, name: &str, value: &str) {
        let p = self.path(name);
        self.signals.push((p, 0, 0, value.to_string()));
    }
}

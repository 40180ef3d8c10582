//! The server under test: the release `confer` binary, its phase log,
//! and its CPU, memory and disk as `/proc` reports them.

use super::*;

/// `--baseline`: the `confer` binary the next servers start from (`None`:
/// this build's).
pub(crate) static SERVER_BINARY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// `--pin`: servers run on CPU 0 alone.
pub(crate) static PIN: AtomicBool = AtomicBool::new(false);

pub(crate) struct Confer {
    pub(crate) child: Child,
    pub(crate) base: String,
    pub(crate) data: PathBuf,
    /// Per-turn phase timings (µs) from the server's log, with `--phases`.
    pub(crate) phases: Arc<Mutex<BTreeMap<String, Vec<u64>>>>,
    pub(crate) _dir: tempfile::TempDir,
}

impl Confer {
    pub(crate) fn start(vendor: &str, dir: Option<tempfile::TempDir>) -> Self {
        let dir = dir.unwrap_or_else(|| tempfile::tempdir().unwrap());
        let data = dir.path().join("data");
        let mut command = match SERVER_BINARY.lock().unwrap().as_deref() {
            Some(binary) => support::confer_command_of(binary, &data, KEY),
            None => support::confer_command(&data, KEY),
        };
        if PIN.load(Ordering::Relaxed) {
            pin::server_on_cpu0(&mut command);
        }
        command
            .env("OPENAI_BASE_URL", format!("{vendor}/v1"))
            .env("ANTHROPIC_BASE_URL", vendor)
            .env("OPENAI_API_KEY", "sk-load")
            .env("ANTHROPIC_API_KEY", "sk-load")
            .env("CONFER_MAX_LIVE_THREADS", "100000")
            .stderr(Stdio::inherit());
        let collect = PHASES.load(Ordering::Relaxed);
        if collect {
            command
                .env("CONFER_LOG", "warn,confer::turn_timings=debug")
                .env("CONFER_LOG_FORMAT", "json")
                .stderr(Stdio::piped());
        }
        let (mut child, base) = support::spawn_listening(command);
        let phases = Arc::new(Mutex::new(BTreeMap::new()));
        if let Some(stderr) = child.stderr.take() {
            let phases = Arc::clone(&phases);
            std::thread::spawn(move || collect_phases(stderr, &phases));
        }
        Self {
            child,
            base,
            data,
            phases,
            _dir: dir,
        }
    }

    /// p50/p90/p99 (ms) of each phase logged so far.
    pub(crate) fn phase_percentiles(&self) -> Value {
        let phases = self.phases.lock().unwrap();
        if phases.is_empty() {
            return Value::Null;
        }
        PHASE_FIELDS
            .iter()
            .map(|f| {
                let values = phases.get(*f).cloned().unwrap_or_default();
                (f.trim_end_matches("_us").to_owned(), percentiles(values))
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    }

    /// (CPU seconds, current RSS KiB, peak RSS KiB) from /proc.
    pub(crate) fn usage(&self) -> (f64, u64, u64) {
        proc_usage(self.child.id())
    }

    pub(crate) fn kill(mut self) -> tempfile::TempDir {
        support::kill_server(&mut self.child);
        std::mem::replace(&mut self._dir, tempfile::tempdir().unwrap())
    }
}

impl Drop for Confer {
    fn drop(&mut self) {
        support::kill_server(&mut self.child);
    }
}

/// Reads the server's JSON log: `turn timings` lines are collected, the
/// rest is passed on to our standard error.
pub(crate) fn collect_phases(
    stderr: std::process::ChildStderr,
    phases: &Mutex<BTreeMap<String, Vec<u64>>>,
) {
    use std::io::BufRead;
    for line in std::io::BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
    {
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            eprintln!("{line}");
            continue;
        };
        if event["message"] != "turn timings" {
            eprintln!("{line}");
            continue;
        }
        let mut phases = phases.lock().unwrap();
        for field in PHASE_FIELDS {
            if let Some(us) = event[field].as_u64() {
                phases.entry(field.to_owned()).or_default().push(us);
            }
        }
    }
}

/// utime + stime (s) of a `/proc/.../stat` line.
fn stat_cpu(stat: &str) -> f64 {
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0 // at USER_HZ = 100
}

/// CPU seconds of each of `pid`'s threads, by thread id.
pub(crate) fn thread_cpu(pid: u32) -> BTreeMap<u32, f64> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return BTreeMap::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let tid = task.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            Some((tid, stat_cpu(&stat)))
        })
        .collect()
}

/// The most CPU any one thread used since `before`: the HTTP worker's
/// share, which is what saturates first on one core.
pub(crate) fn busiest_thread_since(pid: u32, before: &BTreeMap<u32, f64>) -> f64 {
    thread_cpu(pid)
        .into_iter()
        .map(|(tid, cpu)| cpu - before.get(&tid).copied().unwrap_or(0.0))
        .fold(0.0, f64::max)
}

pub(crate) fn proc_usage(pid: u32) -> (f64, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let cpu = stat_cpu(&stat);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (cpu, kib("VmRSS:"), kib("VmHWM:"))
}

pub(crate) fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

//! axumapp: a Rust test service (axum on tokio) whose handler compiles a
//! regular expression on every request.
//!
//! GET /summary calls `summarize`, which counts the problems in a service
//! log of 60 lines by kind with a `Regex`: in `--mode buggy` (the default)
//! it compiles the Regex on every call (the planted cost: the regex
//! crates' compiler does the work, `summarize` owns it); in `--mode fixed`
//! the Regex is compiled once. The answers are identical.
//! GET /healthz answers "ok".
//!
//! Flags: --addr HOST:PORT (default 127.0.0.1:8080; port 0 picks a free
//! one), --mode buggy|fixed (also -addr, -mode). Once listening it prints
//! "listening on http://HOST:PORT"; on SIGTERM or SIGINT it stops
//! gracefully, prints "summaries: N" and exits 0.
//!
//! Built the way cargo builds by default (`cargo build --release`: no
//! frame pointers, no debug information).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use axum::{extract::State, routing::get, Router};
use regex::Regex;

/// A problem in a log line: its kind (a keyword, any case) and the
/// component it names ("timeout: db-primary" gives timeout, db-primary).
const PROBLEM: &str = r"(?i)\b(error|warn(?:ing)?|fatal|timeout|refused|denied|panic(?:ked)?|retry(?:ing)?|unavailable)\b[:\s]+(\w+(?:[-.]\w+)*)";

/// How summarize gets its Regex.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Compile it on every call (the planted cost).
    Buggy,
    /// Compile it once.
    Fixed,
}

#[derive(Clone)]
struct App {
    mode: Mode,
    log: &'static str,
    served: &'static AtomicU64,
}

static SERVED: AtomicU64 = AtomicU64::new(0);

/// The log that /summary summarizes: 60 lines, a third of them problems.
fn service_log() -> String {
    const KINDS: [&str; 9] = [
        "ERROR", "warning", "Timeout", "refused", "denied", "panicked", "retrying", "unavailable", "fatal",
    ];
    const PARTS: [&str; 6] = ["db-primary", "cache.eu-1", "auth", "queue-7", "search", "billing.v2"];
    let mut log = String::new();
    for i in 0..60 {
        if i % 3 == 0 {
            let _ = writeln!(log, "2026-11-26T10:{:02}:00Z {}: {} after {} ms", i, KINDS[i / 3 % 9], PARTS[i / 3 % 6], 10 * i);
        } else {
            let _ = writeln!(log, "2026-11-26T10:{:02}:00Z request {} served in {} ms by {}", i, 1000 + i, i % 17, PARTS[i % 6]);
        }
    }
    log
}

fn problem_regex() -> Regex {
    Regex::new(PROBLEM).expect("PROBLEM is a valid pattern")
}

/// Counts the log's problems by kind and component. Kept out of line so
/// that it is a function of its own in the binary, as a larger function
/// of a real service would be.
#[inline(never)]
fn summarize(log: &str, mode: Mode) -> String {
    static ONCE: OnceLock<Regex> = OnceLock::new();
    let compiled;
    let re = match mode {
        Mode::Buggy => {
            compiled = problem_regex();
            &compiled
        }
        Mode::Fixed => ONCE.get_or_init(problem_regex),
    };
    let mut counts: BTreeMap<(String, String), u32> = BTreeMap::new();
    for c in re.captures_iter(log) {
        let kind = c[1].to_lowercase();
        *counts.entry((kind, c[2].to_string())).or_default() += 1;
    }
    let mut out = String::new();
    for ((kind, part), n) in &counts {
        let _ = writeln!(out, "{kind} {part} {n}");
    }
    out
}

async fn summary(State(app): State<App>) -> String {
    app.served.fetch_add(1, Ordering::Relaxed);
    summarize(app.log, app.mode)
}

async fn healthz() -> &'static str {
    "ok\n"
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("axumapp: {msg}\nusage: axumapp [--addr HOST:PORT] [--mode buggy|fixed]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut addr = "127.0.0.1:8080".to_string();
    let mut mode = Mode::Buggy;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        let name = name.trim_start_matches('-');
        let Some(value) = inline.or_else(|| args.next()) else {
            return usage(&format!("flag {a} needs a value"));
        };
        match name {
            "addr" => addr = value,
            "mode" => {
                mode = match value.as_str() {
                    "buggy" => Mode::Buggy,
                    "fixed" => Mode::Fixed,
                    _ => return usage(&format!("--mode {value:?}: want buggy or fixed")),
                }
            }
            _ => return usage(&format!("unknown flag {a}")),
        }
    }
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("axumapp: starting the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(serve(addr, mode)) {
        Ok(()) => {
            println!("summaries: {}", SERVED.load(Ordering::Relaxed));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("axumapp: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve(addr: String, mode: Mode) -> std::io::Result<()> {
    let app = App { mode, log: Box::leak(service_log().into_boxed_str()), served: &SERVED };
    let router = Router::new().route("/summary", get(summary)).route("/healthz", get(healthz)).with_state(app);
    let listener = tokio::net::TcpListener::bind(&addr).await.map_err(|e| std::io::Error::new(e.kind(), format!("listening on {addr}: {e}")))?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router).with_graceful_shutdown(stopped()).await
}

/// Resolves on SIGTERM or SIGINT.
async fn stopped() {
    use tokio::signal::unix::{signal, SignalKind};
    let stop = std::sync::Arc::new(tokio::sync::Notify::new());
    for kind in [SignalKind::terminate(), SignalKind::interrupt()] {
        if let Ok(mut sig) = signal(kind) {
            let stop = stop.clone();
            tokio::spawn(async move {
                sig.recv().await;
                stop.notify_one();
            });
        }
    }
    stop.notified().await;
}

//! rxsvc compiles a regular expression for every "request", as a service
//! that builds its Regex per call does: regex-automata's compiler is at
//! the leaf, the user's summarize owns the cost.
use regex::Regex;

#[inline(never)]
fn summarize(s: &str) -> usize {
    let re = Regex::new(r"(\w+)@(\w+)\.(com|org|net)[0-9]?").unwrap();
    re.find_iter(s).count()
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut total = 0;
    for i in 0..n {
        total += summarize(&format!("user{}@example.com and x{}@y.org", i, i));
    }
    println!("{}", total);
}

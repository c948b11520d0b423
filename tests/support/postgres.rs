//! A private PostgreSQL server for the tests, started in a temporary
//! directory with `initdb` and `pg_ctl` (Debian's `postgresql` package,
//! which `.ci/run` installs), and stopped and removed when dropped.
#![allow(dead_code)] // each test file uses part of it

use crate::temp::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The PostgreSQL server, or why there is none: under `CI=true` its
/// absence fails the test; elsewhere the reason is printed and the
/// caller skips.
pub fn start_or_skip(test: &str) -> Option<PgServer> {
    match PgServer::start() {
        Ok(server) => Some(server),
        Err(why) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "{test} needs a PostgreSQL server to start and could not: {why}. \
                     .ci/run installs Debian's postgresql package."
                );
            }
            eprintln!("SKIPPED {test}: {why} (install Debian's postgresql to run it)");
            None
        }
    }
}

/// Where Debian (or PATH) has the PostgreSQL server binaries.
pub fn postgres_bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
        .collect();
    versions.sort();
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A PostgreSQL server of our own, stopped and removed when dropped.
pub struct PgServer {
    bin: PathBuf,
    data: PathBuf,
    pub port: u16,
    as_postgres: bool,
    _dir: TempDir,
}

impl PgServer {
    pub fn command(&self, program: &str) -> Command {
        pg_command(&self.bin, program, self.as_postgres)
    }

    pub fn start() -> Result<PgServer, String> {
        let bin =
            postgres_bin_dir().ok_or("no initdb/pg_ctl in /usr/lib/postgresql/*/bin or on PATH")?;
        let dir = TempDir::new("postgres");
        // initdb refuses to run as root: run the server as the `postgres`
        // user (Debian's package creates it), who must own the directory.
        let as_postgres = is_root();
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .map_err(|e| format!("chown: {e}"))?;
            if !status.success() {
                return Err("cannot give the temporary directory to the postgres user".into());
            }
        }
        let data = dir.path().join("data");
        let port = free_port()?;
        let out = pg_command(&bin, "initdb", as_postgres)
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&data)
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let server = PgServer {
            bin,
            data,
            port,
            as_postgres,
            _dir: dir,
        };
        server.start_again()?;
        Ok(server)
    }

    /// Start the server (again, after [`PgServer::stop`]) on its port.
    pub fn start_again(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -F",
            self.port,
            self._dir.path().display()
        );
        let out = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self._dir.path().join("log"))
            .args(["-o", &options, "-w", "-t", "60", "start"])
            .output()
            .map_err(|e| format!("pg_ctl: {e}"))?;
        if !out.status.success() {
            let log = std::fs::read_to_string(self._dir.path().join("log")).unwrap_or_default();
            return Err(format!(
                "pg_ctl start failed: {}{log}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// Stop the server at once, as an outage would (its data stay).
    pub fn stop(&self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn pg_command(bin: &Path, program: &str, as_postgres: bool) -> Command {
    let path = bin.join(program);
    if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("port: {e}"))
}

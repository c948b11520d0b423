//! A TCP proxy in front of PostgreSQL that loses one answer: once armed,
//! the first connection that sends a move's `INSERT` has its next
//! `COMMIT` passed on to the database and the answer dropped with the
//! connection, as a network that fails at the worst moment does. The
//! database has the move; the server hears only that the connection
//! broke.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The proxy: its port, and whether it is armed or has lost an answer.
pub struct LostAnswer {
    pub port: u16,
    armed: Arc<AtomicBool>,
    lost: Arc<AtomicBool>,
}

impl LostAnswer {
    /// A proxy to PostgreSQL on `target` (a port of 127.0.0.1), passing
    /// everything on until armed.
    pub async fn start(target: u16) -> LostAnswer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("its address").port();
        let armed = Arc::new(AtomicBool::new(false));
        let lost = Arc::new(AtomicBool::new(false));
        let (armed_in, lost_in) = (Arc::clone(&armed), Arc::clone(&lost));
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)).await else {
                    continue;
                };
                tokio::spawn(pipe(
                    client,
                    server,
                    Arc::clone(&armed_in),
                    Arc::clone(&lost_in),
                ));
            }
        });
        LostAnswer { port, armed, lost }
    }

    /// Lose the answer to the next move's commit.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Whether an answer was lost.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Pass bytes both ways; on the armed connection, drop both sides when
/// the answer to its commit comes.
async fn pipe(client: TcpStream, server: TcpStream, armed: Arc<AtomicBool>, lost: Arc<AtomicBool>) {
    let (mut client_in, mut client_out) = client.into_split();
    let (mut server_in, mut server_out) = server.into_split();
    let inserting = AtomicBool::new(false);
    let committed = AtomicBool::new(false);
    let up = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = client_in.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            let sent = &buf[..n];
            if armed.load(Ordering::SeqCst) && contains(sent, b"INSERT INTO moves") {
                inserting.store(true, Ordering::SeqCst);
            }
            if inserting.load(Ordering::SeqCst) && contains(sent, b"COMMIT") {
                armed.store(false, Ordering::SeqCst);
                committed.store(true, Ordering::SeqCst);
            }
            if server_out.write_all(sent).await.is_err() {
                return;
            }
        }
    };
    let down = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = server_in.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            if committed.load(Ordering::SeqCst) {
                lost.store(true, Ordering::SeqCst);
                return;
            }
            if client_out.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        () = up => {}
        () = down => {}
    }
}

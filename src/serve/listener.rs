//! The server's TCP listener, guarded before HTTP sees a byte: at most so
//! many connections from one address, and a connection that sends
//! nothing for a while is closed. Without them one client could hold
//! every file handle the server has with connections that never finish a
//! request (the WebSocket limit counts only upgraded connections).

use axum::serve::Listener;
use dashmap::DashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// Connections open per address, up to a limit.
#[derive(Debug)]
pub struct AddressCounts {
    counts: DashMap<IpAddr, usize>,
    limit: usize,
}

impl AddressCounts {
    /// Counts that let at most `limit` connections in from one address.
    pub fn new(limit: usize) -> AddressCounts {
        AddressCounts {
            counts: DashMap::new(),
            limit,
        }
    }

    /// Count one more connection from `addr`; false (and not counted)
    /// when it has as many as the limit.
    pub fn enter(&self, addr: IpAddr) -> bool {
        let mut count = self.counts.entry(addr).or_insert(0);
        if *count >= self.limit {
            return false;
        }
        *count += 1;
        true
    }

    /// A connection from `addr` closed.
    pub fn leave(&self, addr: IpAddr) {
        if let Some(mut count) = self.counts.get_mut(&addr) {
            *count = count.saturating_sub(1);
        }
        self.counts.remove_if(&addr, |_, n| *n == 0);
    }
}

/// One counted connection: it leaves the count when dropped.
struct AddressSlot {
    counts: Arc<AddressCounts>,
    addr: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        self.counts.leave(self.addr);
    }
}

/// A [`TcpListener`] that refuses an address's connections past its
/// limit (closing them at once) and gives out [`GuardedStream`]s.
pub struct GuardedListener {
    inner: TcpListener,
    counts: Arc<AddressCounts>,
    idle: Duration,
}

impl GuardedListener {
    /// Guard `inner`: `per_address` connections at most, each closed once
    /// it has sent nothing for `idle`.
    pub fn new(inner: TcpListener, per_address: usize, idle: Duration) -> GuardedListener {
        GuardedListener {
            inner,
            counts: Arc::new(AddressCounts::new(per_address)),
            idle,
        }
    }
}

impl Listener for GuardedListener {
    type Io = GuardedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (GuardedStream, SocketAddr) {
        loop {
            let (tcp, addr) = Listener::accept(&mut self.inner).await;
            if !self.counts.enter(addr.ip()) {
                continue;
            }
            let slot = AddressSlot {
                counts: Arc::clone(&self.counts),
                addr: addr.ip(),
            };
            no_delay(&tcp);
            let stream = GuardedStream {
                tcp,
                _slot: slot,
                idle: self.idle,
                silence: Box::pin(tokio::time::sleep(self.idle)),
            };
            return (stream, addr);
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// Send every write at once (`TCP_NODELAY`): with Nagle's algorithm a room
/// state could wait for the peer's acknowledgement of the one before,
/// which a delayed ACK holds back for tens of milliseconds.
fn no_delay(tcp: &TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        eprintln!("bashni serve: cannot set TCP_NODELAY: {e}");
    }
}

/// A counted connection whose reads fail once the peer has sent nothing
/// for the listener's `idle` time (a page's WebSocket answers the
/// server's pings well within it).
pub struct GuardedStream {
    tcp: TcpStream,
    _slot: AddressSlot,
    idle: Duration,
    silence: Pin<Box<Sleep>>,
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.tcp).poll_read(cx, buf) {
            Poll::Ready(read) => {
                this.silence.as_mut().reset(Instant::now() + this.idle);
                Poll::Ready(read)
            }
            Poll::Pending => match this.silence.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the peer sent nothing for too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

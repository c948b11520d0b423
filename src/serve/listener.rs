//! The server's TCP listener, guarded before HTTP sees a byte: at most so
//! many connections from one address (an IPv6 /64 counting as one, as one
//! host holds it whole), a connection that sends nothing for a while is
//! closed, and so is one whose request's headers are not whole within
//! that time, however slowly they trickle in: the first request's, and
//! every later one's on a connection kept alive. Without them one
//! client could hold every file handle the server has with connections
//! that never finish a request (the WebSocket limit counts only upgraded
//! connections).

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

    /// One more from `addr`, counted until the slot is dropped; none
    /// (and not counted) when it has as many as the limit.
    pub fn slot(self: &Arc<Self>, addr: IpAddr) -> Option<AddressSlot> {
        self.enter(addr).then(|| AddressSlot {
            counts: Arc::clone(self),
            addr,
        })
    }
}

/// One counted connection (or analysis): it leaves the count when
/// dropped.
#[derive(Debug)]
pub struct AddressSlot {
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
            let Some(slot) = self.counts.slot(client_of(addr.ip())) else {
                continue;
            };
            no_delay(&tcp);
            let stream = GuardedStream {
                tcp,
                _slot: slot,
                idle: self.idle,
                silence: Box::pin(tokio::time::sleep(self.idle)),
                requests: Requests::Headers(HeaderWait::new(self.idle)),
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
/// The address a limit counts for a peer: an IPv4 address itself, an
/// IPv6 one by its /64 network (one host is given a whole /64, so its
/// addresses are one client), an IPv4 address mapped into IPv6 as IPv4.
pub fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

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
    /// Where the bytes are: in a request's headers, after them, or past
    /// HTTP (a WebSocket's frames).
    requests: Requests,
}

/// Where a connection's bytes are, as far as the header guard knows.
enum Requests {
    /// In a request's headers, which must be whole by a deadline.
    Headers(HeaderWait),
    /// After a request's headers: whatever comes next is another
    /// request's (on a connection kept alive; a body too, which this
    /// server takes none of), unless the server switched protocols.
    Between,
    /// Past HTTP: the server answered `101 Switching Protocols`, and a
    /// WebSocket's frames follow, left to the silence guard and the
    /// WebSocket's own.
    Off,
}

/// How the server's answer to a WebSocket's handshake begins: hyper
/// writes a response's head in one piece.
const SWITCHING_PROTOCOLS: &[u8] = b"HTTP/1.1 101 ";

impl Requests {
    /// Follow `bytes`, read next; a request begun gets `idle` for its
    /// headers.
    fn follow(&mut self, mut bytes: &[u8], idle: Duration) {
        while !bytes.is_empty() {
            match self {
                Requests::Headers(wait) => match wait.end_in(bytes) {
                    Some(end) => {
                        *self = Requests::Between;
                        bytes = &bytes[end..];
                    }
                    None => return,
                },
                Requests::Between => *self = Requests::Headers(HeaderWait::new(idle)),
                Requests::Off => return,
            }
        }
    }

    /// Follow `bytes`, written by the server: once it switched protocols
    /// the connection is no longer HTTP's.
    fn answered(&mut self, bytes: &[u8]) {
        if bytes.starts_with(SWITCHING_PROTOCOLS) {
            *self = Requests::Off;
        }
    }

    /// Whether a request's headers are overdue, registering `cx` for the
    /// deadline if they are on their way.
    fn overdue(&mut self, cx: &mut Context<'_>) -> bool {
        match self {
            Requests::Headers(wait) => wait.deadline.as_mut().poll(cx).is_ready(),
            Requests::Between | Requests::Off => false,
        }
    }
}

/// The end of a request's headers: a blank line.
const HEADERS_END: &[u8] = b"\r\n\r\n";

/// A request's headers on their way: when they must be whole, and how
/// much of [`HEADERS_END`] the bytes so far end with.
struct HeaderWait {
    deadline: Pin<Box<Sleep>>,
    matched: usize,
}

impl HeaderWait {
    /// Headers begun now, due within `idle`.
    fn new(idle: Duration) -> HeaderWait {
        HeaderWait {
            deadline: Box::pin(tokio::time::sleep(idle)),
            matched: 0,
        }
    }

    /// Where in `bytes`, read next, the headers end (the index after
    /// their blank line), if they do.
    fn end_in(&mut self, bytes: &[u8]) -> Option<usize> {
        for (i, &b) in bytes.iter().enumerate() {
            self.matched = match b == HEADERS_END[self.matched] {
                true => self.matched + 1,
                false => usize::from(b == HEADERS_END[0]),
            };
            if self.matched == HEADERS_END.len() {
                return Some(i + 1);
            }
        }
        None
    }
}

fn timed_out(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, what.to_owned())
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut this.tcp).poll_read(cx, buf) {
            Poll::Ready(read) => {
                this.silence.as_mut().reset(Instant::now() + this.idle);
                this.requests.follow(&buf.filled()[before..], this.idle);
                if matches!(&this.requests, Requests::Headers(w) if w.deadline.is_elapsed()) {
                    return Poll::Ready(Err(timed_out("the request's headers took too long")));
                }
                Poll::Ready(read)
            }
            Poll::Pending => {
                if this.requests.overdue(cx) {
                    return Poll::Ready(Err(timed_out("the request's headers took too long")));
                }
                match this.silence.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Err(timed_out("the peer sent nothing for too long")))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.requests.answered(buf);
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
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            self.requests.answered(first);
        }
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_network_of_64_bits_is_one_client() {
        let ip = |text: &str| text.parse::<IpAddr>().expect("an address");
        let (a, b) = (ip("2001:db8:1:2:aaaa::1"), ip("2001:db8:1:2:bbbb::9"));
        assert_eq!(client_of(a), ip("2001:db8:1:2::"));
        assert_eq!(client_of(a), client_of(b));
        assert_ne!(client_of(a), client_of(ip("2001:db8:1:3::1")));
        assert_eq!(client_of(ip("203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(client_of(ip("::ffff:203.0.113.7")), ip("203.0.113.7"));
    }

    #[tokio::test]
    async fn headers_end_at_a_blank_line_whatever_the_reads() {
        let wait = || HeaderWait::new(Duration::from_secs(1));
        let mut split = wait();
        assert_eq!(split.end_in(b"GET / HTTP/1.1\r\nHost: x\r"), None);
        assert_eq!(split.end_in(b"\n\r"), None);
        assert_eq!(split.end_in(b"\nGET"), Some(1));
        let mut lines = wait();
        assert_eq!(lines.end_in(b"GET / HTTP/1.1\r\n\r\r\nHost: x\r\n"), None);
        assert_eq!(lines.end_in(b"\r\n"), Some(2));
    }

    #[tokio::test]
    async fn every_request_of_a_connection_kept_alive_is_guarded_a_websocket_not() {
        let idle = Duration::from_secs(1);
        let guarded = |r: &Requests| matches!(r, Requests::Headers(_));
        let mut kept_alive = Requests::Headers(HeaderWait::new(idle));
        kept_alive.follow(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", idle);
        assert!(matches!(kept_alive, Requests::Between));
        kept_alive.answered(b"HTTP/1.1 200 OK\r\n");
        kept_alive.follow(b"G", idle);
        assert!(guarded(&kept_alive), "a second request's headers");
        kept_alive.follow(b"ET /a HTTP/1.1\r\n\r\nGET /b", idle);
        assert!(guarded(&kept_alive), "a third, in the same read");
        // Whatever a request begins with: a blank line, a lowercase
        // method, a body before it.
        for next in [&b"\r\n"[..], b"get", b"abc"] {
            let mut odd = Requests::Between;
            odd.follow(next, idle);
            assert!(guarded(&odd), "{next:?}");
        }
        let mut socket = Requests::Headers(HeaderWait::new(idle));
        socket.follow(b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", idle);
        socket.answered(b"HTTP/1.1 101 Switching Protocols\r\n");
        socket.follow(b"\x81\x85GET / HTTP/1.1", idle);
        assert!(
            matches!(socket, Requests::Off),
            "a frame's bytes stay frames"
        );
    }
}

//! stdin and stdout as pipes driven by the reactor, when they are pipes (as they are when a
//! client spawns the server). tokio's own `stdin()`/`stdout()` work on anything, but hand
//! every read and write to a blocking thread; with pipes the reads and writes are
//! non-blocking and woken by epoll, which costs a fraction of the CPU per message.
//!
//! The pipe ends are duplicates of fds 0 and 1, put in non-blocking mode for the serving and
//! back in blocking mode when dropped, so the process's stdin/stdout behave as before
//! afterwards.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::unix::pipe;

fn gone() -> io::Error {
    io::Error::other("the pipe was already released")
}

/// Which pipe (device, inode) an fd is, if it is one.
fn identity(fd: &OwnedFd) -> Option<(u64, u64)> {
    let meta = std::fs::File::from(fd.try_clone().ok()?).metadata().ok()?;
    Some((meta.dev(), meta.ino()))
}

/// The capacity asked of the kernel for the stdio pipes (Linux), then a smaller one:
/// room for a message of a couple of hundred kilobytes to cross in one write and one
/// read, where the default 64 KiB takes several of each, with a wake-up each on both
/// sides. Not more: the kernel charges a pipe's capacity (not its use) to the user's
/// pipe quota (`/proc/sys/fs/pipe-user-pages-soft`, 64 MiB by default), past which every
/// new pipe the user makes gets 8 KiB, and an IDE may start dozens of servers. 256 KiB
/// is 48 pages more a pipe than the default; 1 MiB would be 240. The kernel takes the
/// memory itself as data is written, not up front.
#[cfg(target_os = "linux")]
pub(super) const PIPE_SIZES: [usize; 2] = [256 << 10, 128 << 10];

/// Enlarges a pipe as far as the kernel allows, if it is smaller; a refusal (the
/// user's pipe memory quota, a lower system limit) leaves it as it was.
fn enlarge(fd: std::os::fd::BorrowedFd<'_>) {
    #[cfg(target_os = "linux")]
    {
        let Ok(now) = rustix::pipe::fcntl_getpipe_size(fd) else {
            return;
        };
        for size in PIPE_SIZES {
            if now >= size || rustix::pipe::fcntl_setpipe_size(fd, size).is_ok() {
                return;
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// stdin as a reactor-driven pipe; `None` when it is not a pipe.
pub(super) fn stdin() -> Option<In> {
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let receiver = pipe::Receiver::from_owned_fd(fd).ok()?;
    enlarge(receiver.as_fd());
    Some(In(Some(receiver)))
}

/// stdout as a reactor-driven pipe; `None` when it is not a pipe, or when stderr is the
/// same pipe (non-blocking mode would then reach the log writes too).
pub(super) fn stdout() -> Option<Out> {
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let err = io::stderr().as_fd().try_clone_to_owned().ok();
    let err = err.as_ref().and_then(identity);
    if err.is_some() && identity(&fd) == err {
        return None;
    }
    let sender = pipe::Sender::from_owned_fd(fd).ok()?;
    enlarge(sender.as_fd());
    Some(Out(Some(sender)))
}

/// The read end; blocking again once dropped.
pub(super) struct In(Option<pipe::Receiver>);

impl AsyncRead for In {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.0.as_mut() {
            Some(r) => Pin::new(r).poll_read(cx, buf),
            None => Poll::Ready(Err(gone())),
        }
    }
}

impl Drop for In {
    fn drop(&mut self) {
        if let Some(r) = self.0.take() {
            let _ = r.into_blocking_fd();
        }
    }
}

/// The write end; blocking again once dropped.
pub(super) struct Out(Option<pipe::Sender>);

impl AsyncWrite for Out {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.0.as_mut() {
            Some(w) => Pin::new(w).poll_write(cx, buf),
            None => Poll::Ready(Err(gone())),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.0.as_mut() {
            Some(w) => Pin::new(w).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.0.as_mut() {
            Some(w) => Pin::new(w).poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        if let Some(w) = self.0.take() {
            let _ = w.into_blocking_fd();
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::fd::AsFd;
    use std::process::{Command, Stdio};

    /// What this system lets an unprivileged process give a pipe, up to the size asked.
    fn expected() -> usize {
        let max: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        super::PIPE_SIZES
            .into_iter()
            .find(|&size| size <= max)
            .unwrap_or(64 * 1024)
    }

    /// A child process takes its stdin and stdout as the transport does; the pipes it was
    /// given (whose other ends this process holds) are enlarged, from the default 64 KiB.
    #[test]
    fn the_stdio_pipes_are_enlarged() {
        if std::env::var_os("MCP_PIPES_CHILD").is_some() {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let taken =
                runtime.block_on(async { super::stdin().is_some() && super::stdout().is_some() });
            assert!(taken, "stdin and stdout are pipes here");
            return;
        }
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "transport::stdio::pipes::tests::the_stdio_pipes_are_enlarged",
                "--test-threads=1",
                "--quiet",
            ])
            .env("MCP_PIPES_CHILD", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let before = rustix::pipe::fcntl_getpipe_size(input.as_fd()).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success());
        let want = expected();
        assert!(before <= want);
        assert_eq!(
            rustix::pipe::fcntl_getpipe_size(input.as_fd()).unwrap(),
            want
        );
        assert_eq!(
            rustix::pipe::fcntl_getpipe_size(output.as_fd()).unwrap(),
            want
        );
    }
}

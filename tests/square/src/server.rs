//! Listening on loopback and serving connections, including the one thing a
//! stock server cannot do: close a connection without answering (the
//! "drop" fault).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::app::App;
use crate::config::{Config, ConfigError};
use crate::http::{router, DropAnswer};

/// Why the stand-in could not start.
#[derive(Debug)]
pub enum StartError {
    Config(ConfigError),
    Bind(std::io::Error),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Config(error) => write!(f, "bad configuration: {error}"),
            StartError::Bind(error) => write!(f, "cannot listen: {error}"),
        }
    }
}

impl std::error::Error for StartError {}

/// A running stand-in. Dropping it stops the server too.
#[derive(Debug)]
pub struct Handle {
    addr: SocketAddr,
    shutdown: CancellationToken,
    accept_loop: Option<JoinHandle<()>>,
}

impl Handle {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, the base URL to give the Worker as Square's.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, ends open connections, timers and deliveries.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(accept_loop) = self.accept_loop.take() {
            // The loop only ends by cancellation; a panic in it is already
            // reported by the runtime.
            let _ = accept_loop.await;
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Starts the stand-in on `config.listen` inside the current Tokio runtime.
pub async fn start(config: Config) -> Result<Handle, StartError> {
    config.validate().map_err(StartError::Config)?;
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(StartError::Bind)?;
    let addr = listener.local_addr().map_err(StartError::Bind)?;
    let shutdown = CancellationToken::new();
    let connections = Arc::new(Semaphore::new(config.limits.open_connections.max(1)));
    let app = App::new(config, shutdown.clone());
    app.spawn_lapse_sweeper();
    let routes = router(app);
    let accept_loop = tokio::spawn(accept(listener, routes, connections, shutdown.clone()));
    Ok(Handle {
        addr,
        shutdown,
        accept_loop: Some(accept_loop),
    })
}

async fn accept(
    listener: TcpListener,
    routes: Router,
    connections: Arc<Semaphore>,
    shutdown: CancellationToken,
) {
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => permit.expect("the connection semaphore stays open"),
            () = shutdown.cancelled() => return,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => return,
        };
        match accepted {
            Ok((stream, _)) => {
                let (routes, shutdown) = (routes.clone(), shutdown.clone());
                tokio::spawn(async move {
                    serve(stream, routes, shutdown).await;
                    drop(permit);
                });
            }
            // Out of file descriptors and the like: wait rather than spin.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Serves one connection until the client leaves, the server stops, or a
/// handler asks for its answer to be dropped.
async fn serve(stream: TcpStream, routes: Router, shutdown: CancellationToken) {
    let drop_requested = Arc::new(Notify::new());
    let notify = Arc::clone(&drop_requested);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let (routes, notify) = (routes.clone(), Arc::clone(&notify));
        async move {
            let response = routes
                .oneshot(request.map(Body::new))
                .await
                .unwrap_or_else(|never: Infallible| match never {});
            if response.extensions().get::<DropAnswer>().is_some() {
                notify.notify_one();
                // Never answer: the connection is dropped below.
                std::future::pending::<()>().await;
            }
            Ok::<_, Infallible>(response)
        }
    });
    let connection =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        // A client that hangs up mid-request is its own business.
        _ = connection => {}
        () = drop_requested.notified() => {}
        () = shutdown.cancelled() => {}
    }
}

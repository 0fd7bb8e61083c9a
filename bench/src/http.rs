//! A lean HTTP client for the load: one shared connection pool, the
//! buyer's session cookie passed by hand, and bodies read but parsed only
//! when the client needs something from them (a hold id), so the load
//! generator spends as little CPU as it can on the cores it shares with
//! the server.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;

#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
    base: Arc<str>,
}

/// An answer: status, the `name=value` of a `Set-Cookie`, and the body.
pub struct Answer {
    pub status: u16,
    pub cookie: Option<String>,
    pub body: Bytes,
}

impl Http {
    pub fn new(base_url: &str) -> Http {
        Http::with_idle(base_url, usize::MAX)
    }

    /// A client that keeps at most `max_idle` connections open between
    /// requests, each for a few seconds: thousands of clients that each
    /// kept one would hold as many sockets open in the dev server.
    pub fn with_idle(base_url: &str, max_idle: usize) -> Http {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(max_idle)
            .pool_idle_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            // Far above any latency measured; a request that takes this
            // long is counted as failed (status 0) rather than hanging.
            .timeout(Duration::from_secs(30))
            .build()
            .expect("http client");
        Http {
            client,
            base: base_url.into(),
        }
    }

    /// `path` as a WebSocket address on the same server.
    pub fn ws_url(&self, path: &str) -> String {
        format!("{}{path}", self.base.replacen("http://", "ws://", 1))
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        json_body: Option<String>,
        cookie: Option<&str>,
    ) -> Result<Answer, reqwest::Error> {
        self.send_with(method, path, json_body, cookie, &[]).await
    }

    /// [`Http::send`] with more headers (a waiting room's admission, the
    /// admin token).
    pub async fn send_with(
        &self,
        method: Method,
        path: &str,
        json_body: Option<String>,
        cookie: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Result<Answer, reqwest::Error> {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(cookie) = cookie {
            req = req.header("cookie", cookie);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(body) = json_body {
            req = req.header("content-type", "application/json").body(body);
        }
        let resp = req.send().await?;
        let cookie = resp
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .and_then(|c| c.split(';').next())
            .map(str::to_string);
        let status = resp.status().as_u16();
        let body = resp.bytes().await?;
        Ok(Answer {
            status,
            cookie,
            body,
        })
    }
}

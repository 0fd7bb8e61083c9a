//! `square-standin`: runs the Square stand-in until Ctrl-C.
//! The first line on stdout is `listening on http://127.0.0.1:PORT`.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use clap::Parser;
use square_standin::Config;

/// A stand-in for Square's API on loopback, for tests and the local demo.
#[derive(Debug, Parser)]
#[command(name = "square-standin", version)]
struct Args {
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The bearer token `/v2` accepts: the access token the Worker is given.
    #[arg(long, default_value = "standin-access-token")]
    access_token: String,
    /// Where webhooks are posted, e.g. http://127.0.0.1:8787/webhooks/square.
    #[arg(long)]
    webhook_url: Option<String>,
    /// The URL signed into webhooks (the Worker's SQUARE_WEBHOOK_URL);
    /// defaults to --webhook-url.
    #[arg(long)]
    notification_url: Option<String>,
    /// The key webhooks are signed with: the signature key the Worker checks with.
    #[arg(long, default_value = "standin-signature-key")]
    signature_key: String,
    #[arg(long, default_value = "LSTANDIN0001")]
    location_id: String,
    #[arg(long, default_value = "sandbox-sq0idb-standin")]
    application_id: String,
    /// The location's currency (ISO 4217): every amount is in it, in its
    /// minor units (none for JPY).
    #[arg(long, default_value = "USD")]
    currency: String,
    /// HTTP status of a card decline: 400 or 402 (Square's is unconfirmed).
    #[arg(long, default_value_t = 400)]
    decline_status: u16,
    /// Milliseconds a refund stays PENDING; "hold" keeps it until the
    /// control API settles it.
    #[arg(long, default_value = "200")]
    refund_settle_ms: String,
    /// Pauses between webhook retries, comma-separated milliseconds.
    #[arg(long, default_value = "1000,2000,4000,8000")]
    webhook_retry_ms: String,
}

fn config(args: Args) -> Result<Config, String> {
    let refund_settle_after_ms =
        match args.refund_settle_ms.as_str() {
            "hold" => None,
            ms => Some(ms.parse().map_err(|_| {
                format!("--refund-settle-ms: {ms} is neither a number nor \"hold\"")
            })?),
        };
    let webhook_retry_delays_ms = args
        .webhook_retry_ms
        .split(',')
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            part.trim()
                .parse()
                .map_err(|_| format!("--webhook-retry-ms: {part} is not a number"))
        })
        .collect::<Result<Vec<u64>, String>>()?;
    Ok(Config {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)),
        access_token: args.access_token,
        webhook_url: args.webhook_url,
        notification_url: args.notification_url,
        signature_key: args.signature_key,
        location_id: args.location_id,
        application_id: args.application_id,
        currency: args.currency,
        decline_status: args.decline_status,
        refund_settle_after_ms,
        webhook_retry_delays_ms,
        ..Config::default()
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config(Args::parse()) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("square-standin: {message}");
            return ExitCode::from(2);
        }
    };
    let standin = match square_standin::start(config).await {
        Ok(standin) => standin,
        Err(error) => {
            eprintln!("square-standin: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on {}", standin.base_url());
    // Whoever started us reads this line to learn the port; make sure it leaves now.
    let _ = std::io::stdout().flush();
    if let Err(error) = tokio::signal::ctrl_c().await {
        eprintln!("square-standin: cannot wait for Ctrl-C: {error}");
    }
    standin.shutdown().await;
    ExitCode::SUCCESS
}

//! One bulk transfer per run between two `quinn` endpoints in this process,
//! over loopback UDP: the server opens a unidirectional stream and writes
//! `--bytes`, the client reads it to the end. Both run on one thread, so the
//! process's CPU time is the cost of both ends. Prints one JSON line per run.
//! With the feature `tuned` the client tunes its stream windows up to 16 MiB
//! (the upstream series' knob); with `tuned-conn` also its connection window,
//! from 2.5 MB up to 24 MiB (as the scoreboard's `upstream-4`).

use std::{
    error::Error,
    net::{Ipv4Addr, SocketAddr},
    sync::Arc,
    time::Instant,
};

use quinn::{ClientConfig, Endpoint, ServerConfig};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

fn usage() -> ! {
    eprintln!("usage: quinn-loopback [--bytes N] [--runs K]");
    std::process::exit(2)
}

fn main() -> Res<()> {
    let (mut bytes, mut runs) = (1u64 << 30, 1u32);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--bytes" => {
                bytes = value
                    .parse()
                    .map_err(|_| format!("--bytes: not a whole number: {value}"))?
            }
            "--runs" => {
                runs = value
                    .parse()
                    .map_err(|_| format!("--runs: not a whole number: {value}"))?
            }
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    for run in 0..runs {
        let cpu0 = cpu_seconds();
        let start = Instant::now();
        let read = rt.block_on(transfer(bytes))?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        println!(
            "{{\"run\": {run}, \"bytes\": {read}, \"wall_s\": {wall:.3}, \"cpu_s\": {cpu:.2}, \"goodput_bps\": {:.0}}}",
            read as f64 * 8.0 / wall
        );
    }
    Ok(())
}

async fn transfer(bytes: u64) -> Res<u64> {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let cert_der = CertificateDer::from(cert.cert);
    let key = PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der());
    let server_config = ServerConfig::with_single_cert(vec![cert_der.clone()], key.into())?;
    let server = Endpoint::server(server_config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let server_addr = server.local_addr()?;

    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert_der)?;
    let mut client = Endpoint::client(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    #[allow(unused_mut)]
    let mut client_config = ClientConfig::with_root_certificates(Arc::new(roots))?;
    #[cfg(feature = "tuned")]
    {
        // The receiver is the client: its stream windows tuned up to 16 MiB.
        let mut transport = quinn::TransportConfig::default();
        transport.max_stream_receive_window(Some(quinn::VarInt::from_u32(16 << 20)));
        #[cfg(feature = "tuned-conn")]
        {
            transport.receive_window(quinn::VarInt::from_u32(2 * 1_250_000));
            transport.max_receive_window(Some(quinn::VarInt::from_u32(24 << 20)));
        }
        client_config.transport_config(Arc::new(transport));
    }
    client.set_default_client_config(client_config);

    let send = async {
        let conn = server.accept().await.ok_or("no connection")?.await?;
        let mut stream = conn.open_uni().await?;
        let chunk = vec![0xAB_u8; 1 << 20];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            stream.write_all(&chunk[..n]).await?;
            left -= n as u64;
        }
        stream.finish()?;
        // Keep the connection until the client has read everything.
        conn.closed().await;
        Res::Ok(())
    };
    let recv = async {
        let conn = client.connect(server_addr, "localhost")?.await?;
        let mut stream = conn.accept_uni().await?;
        let mut read = 0u64;
        while let Some(chunk) = stream.read_chunk(usize::MAX, true).await? {
            read += chunk.bytes.len() as u64;
        }
        conn.close(0u32.into(), b"done");
        Res::Ok(read)
    };
    let (sent, read) = tokio::join!(send, recv);
    sent?;
    let read = read?;
    client.wait_idle().await;
    Ok(read)
}

/// User + system CPU time of this process so far (Linux `/proc`; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime: fields 14 and 15 of the line; what follows the name starts at field 3.
    // In clock ticks, 100 per second on Linux.
    (ticks(11) + ticks(12)) / 100.0
}

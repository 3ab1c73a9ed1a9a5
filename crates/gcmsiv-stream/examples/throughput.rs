//! Streaming throughput of the library beside the `gcmsiv` tool on the same
//! file, and the cost of random access into a large file.
//!
//! ```text
//! cargo build --release -p gcmsiv-cli
//! cargo run --release -p gcmsiv-stream --example throughput -- \
//!     --cli target/release/gcmsiv --size-mib 1024 --dir /path/on/disk
//! ```
//!
//! Each way is run `--repeats` times, interleaved with the others, and the
//! median is printed (timings on a shared machine are noisy: read the ratios).
//! Files go to `--dir` (the system's temporary folder by default; on tmpfs
//! that measures memory, not a disk).

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gcmsiv_stream::{Decryptor, Encryptor, MasterKey, Options, Secret, SeekableDecryptor};

struct Args {
    cli: Option<PathBuf>,
    size_mib: u64,
    dir: PathBuf,
    repeats: usize,
}

fn args() -> Args {
    let mut args = Args { cli: None, size_mib: 1024, dir: std::env::temp_dir(), repeats: 5 };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().expect("a value after the option");
        match arg.as_str() {
            "--cli" => args.cli = Some(value().into()),
            "--size-mib" => args.size_mib = value().parse().expect("a number of MiB"),
            "--dir" => args.dir = value().into(),
            "--repeats" => args.repeats = value().parse().expect("a count"),
            other => panic!("unknown option {other}"),
        }
    }
    args
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn mb_per_s(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64() / 1e6
}

fn cli(cli: &Path, args: &[&Path], verb: &str, key: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(cli)
        .arg(verb)
        .arg("-q")
        .arg("--force")
        .arg("-k")
        .arg(key)
        .arg("-o")
        .arg(args[1])
        .arg(args[0])
        .status()
        .expect("run the tool");
    assert!(status.success());
    start.elapsed()
}

/// One way of encrypting or decrypting the file, timed.
type Way = (&'static str, Box<dyn Fn() -> Duration>);

fn main() -> io::Result<()> {
    let args = args();
    let size = args.size_mib << 20;
    let dir = tempfile::Builder::new().prefix("gcmsiv-throughput-").tempdir_in(&args.dir)?;
    let plain = dir.path().join("plain");
    let sealed = dir.path().join("sealed");
    let opened = dir.path().join("opened");
    let key_path = dir.path().join("key");
    let master = MasterKey::generate().expect("random key");
    std::fs::write(&key_path, master.to_key_file().as_bytes())?;
    let secret = Secret::Key(master);
    {
        let mut out = BufWriter::new(File::create(&plain)?);
        let mut block = vec![0u8; 1 << 20];
        for i in 0..args.size_mib {
            block.iter_mut().enumerate().for_each(|(j, b)| *b = (i as usize * 7 + j * 13 + j / 4093) as u8);
            out.write_all(&block)?;
        }
    }
    let options = Options::new();
    let ways: Vec<Way> = {
        let mut ways: Vec<Way> = Vec::new();
        if let Some(tool) = args.cli.clone() {
            let (p, s, k) = (plain.clone(), sealed.clone(), key_path.clone());
            ways.push(("encrypt: gcmsiv tool", Box::new(move || cli(&tool, &[&p, &s], "encrypt", &k))));
        }
        let (p, s, sec) = (plain.clone(), sealed.clone(), secret.clone());
        ways.push((
            "encrypt: library pipeline (encrypt_from_pipelined)",
            Box::new(move || {
                let start = Instant::now();
                let out = Encryptor::new(File::create(&s).unwrap(), &sec, &options).unwrap();
                out.encrypt_from_pipelined(File::open(&p).unwrap(), |_| {}).unwrap().sync_all().unwrap();
                start.elapsed()
            }),
        ));
        let (p, s, sec) = (plain.clone(), sealed.clone(), secret.clone());
        ways.push((
            "encrypt: library Write adapter (io::copy into Encryptor)",
            Box::new(move || {
                let start = Instant::now();
                let mut out = Encryptor::new(File::create(&s).unwrap(), &sec, &options).unwrap();
                io::copy(&mut File::open(&p).unwrap(), &mut out).unwrap();
                out.finish().unwrap().sync_all().unwrap();
                start.elapsed()
            }),
        ));
        if let Some(tool) = args.cli.clone() {
            let (s, o, k) = (sealed.clone(), opened.clone(), key_path.clone());
            ways.push(("decrypt: gcmsiv tool", Box::new(move || cli(&tool, &[&s, &o], "decrypt", &k))));
        }
        let (s, o, sec) = (sealed.clone(), opened.clone(), secret.clone());
        ways.push((
            "decrypt: library pipeline (decrypt_to_pipelined)",
            Box::new(move || {
                let start = Instant::now();
                let reader = Decryptor::new(File::open(&s).unwrap(), &sec).unwrap();
                reader.decrypt_to_pipelined(File::create(&o).unwrap(), |_| {}).unwrap().sync_all().unwrap();
                start.elapsed()
            }),
        ));
        let (s, o, sec) = (sealed.clone(), opened.clone(), secret.clone());
        ways.push((
            "decrypt: library Read adapter (io::copy from Decryptor)",
            Box::new(move || {
                let start = Instant::now();
                let mut reader = Decryptor::new(File::open(&s).unwrap(), &sec).unwrap();
                let mut out = File::create(&o).unwrap();
                io::copy(&mut reader, &mut out).unwrap();
                out.sync_all().unwrap();
                start.elapsed()
            }),
        ));
        ways
    };
    // The sealed file must exist before the first decryption.
    ways.iter().find(|(name, _)| name.starts_with("encrypt: library pipeline")).unwrap().1();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); ways.len()];
    for _ in 0..args.repeats {
        for (i, (_, way)) in ways.iter().enumerate() {
            times[i].push(way());
        }
    }
    let lscpu = Command::new("lscpu").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let model = lscpu
        .as_deref()
        .and_then(|t| t.lines().find(|l| l.starts_with("Model name")))
        .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        .unwrap_or_default();
    println!(
        "{} MiB file, median of {} runs, {} threads, CPU: {model}",
        args.size_mib,
        args.repeats,
        rayon_threads()
    );
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    for ((name, _), time) in ways.iter().zip(&medians) {
        println!("{name:58} {:8.0} MB/s  ({:.3} s)", mb_per_s(size, *time), time.as_secs_f64());
    }
    if args.cli.is_some() {
        let by = |prefix: &str| ways.iter().position(|(n, _)| n.starts_with(prefix)).map(|i| medians[i]);
        for verb in ["encrypt", "decrypt"] {
            let tool = by(&format!("{verb}: gcmsiv tool")).unwrap();
            for lib in ["library pipeline", "library Write", "library Read"] {
                if let Some(t) = by(&format!("{verb}: {lib}")) {
                    println!("{verb}: {lib} / tool throughput: {:.2}", tool.as_secs_f64() / t.as_secs_f64());
                }
            }
        }
    }

    // Random access: 64 KiB-aligned 64 KiB reads at random chunks.
    let mut reader =
        SeekableDecryptor::new(Metered { inner: File::open(&sealed)?, read: 0 }, &secret).unwrap();
    let chunks = reader.len() >> 16;
    let mut buf = vec![0u8; 1 << 16];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let reads = 200;
    let before = reader_bytes(&mut reader);
    let start = Instant::now();
    for _ in 0..reads {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let chunk = state % chunks;
        reader.seek(SeekFrom::Start(chunk << 16))?;
        reader.read_exact(&mut buf)?;
    }
    let per_read = start.elapsed() / reads;
    let bytes = (reader_bytes(&mut reader) - before) / u64::from(reads);
    println!(
        "random access: one aligned 64 KiB range of the {} MiB file: {:.1} us, {} bytes read from the file per range",
        args.size_mib,
        per_read.as_secs_f64() * 1e6,
        bytes
    );
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Counts the bytes read from the file.
struct Metered {
    inner: File,
    read: u64,
}

impl Read for Metered {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl Seek for Metered {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.inner.seek(to)
    }
}

fn reader_bytes(reader: &mut SeekableDecryptor<Metered>) -> u64 {
    reader.get_ref().read
}

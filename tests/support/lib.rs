//! What the end-to-end tests stand on: the release build of the page served from
//! 127.0.0.1, a chromedriver of its own, and a headless Chromium session.
//!
//! The page must have been built first (`trunk build --release`, as
//! `scripts/test` does); `VRAM_DIST` points elsewhere than `dist/` if needed.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use sha2::{Digest, Sha256};

/// How long any wait for the page may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// True once the page's WebAssembly shows the results (no view written at
/// build time left) and, if it shows charts, has drawn them (the lazily
/// loaded module draws them all in one go: one mark is left after it).
pub const LIVE_AND_DRAWN: &str = r#"
    const live = !document.querySelector("main[data-prerendered]")
        && document.querySelector("[data-testid='mem-total-zero3'][data-value]") !== null;
    const charts = document.querySelector("canvas[data-testid='chart-memory'], canvas[data-testid='chart-max-params'], canvas[data-testid='chart-scaling']");
    return live && (!charts || performance.getEntriesByName("vram-chart-drawn").length > 0);
"#;

/// The built page, served over HTTP/1.0 on a free port of 127.0.0.1 until
/// dropped: a thread per connection, one request each, as Python's
/// `http.server` serves. (tiny_http, used before, left about one load in six
/// of the page with its view written at build time, and one in four of a
/// VitePress site, waiting forever for a preloaded file; eight loads in eight
/// finished with Python's server and with this one.)
pub struct StaticServer {
    address: SocketAddr,
    stop: Arc<std::sync::atomic::AtomicBool>,
    reports: Arc<Mutex<Vec<String>>>,
}

/// Where the server takes Content-Security-Policy violation reports (`report-uri`).
pub const CSP_REPORT_PATH: &str = "/csp-report";

/// A host page, as the course site would be, with the calculator in an iframe.
pub const EMBED_HOST_PATH: &str = "/embed-host.html";

/// The host page: the README's snippet, recording each height message it receives.
const EMBED_HOST_PAGE: &str = r#"<!doctype html><title>host</title>
<iframe id="vram" src="/?embed=1&params=13" style="width: 700px; height: 300px; border: 0" title="GPU memory calculator"></iframe>
<script>
window.heights = [];
addEventListener("message", (event) => {
  if (event.data && event.data.type === "vram-calculator:height") {
    window.heights.push(event.data.height);
    document.getElementById("vram").style.height = event.data.height + "px";
  }
});
</script>"#;

/// A page that breaks any policy without 'unsafe-inline': proof that reports arrive.
pub const CSP_CANARY_PATH: &str = "/csp-canary.html";

impl StaticServer {
    /// Serves the files under `root`.
    pub fn start(root: PathBuf) -> StaticServer {
        StaticServer::start_with_headers(root, Vec::new())
    }

    /// Serves the files under `root`, adding `headers` to every response; takes
    /// violation reports at [`CSP_REPORT_PATH`] and serves [`CSP_CANARY_PATH`].
    pub fn start_with_headers(root: PathBuf, headers: Vec<(String, String)>) -> StaticServer {
        StaticServer::serve(root, headers, false)
    }

    /// Serves the files under `root` gzip-encoded (level 9) to a browser that
    /// accepts it, as a static host does: what a learner's browser transfers.
    pub fn start_compressed(root: PathBuf) -> StaticServer {
        StaticServer::serve(root, Vec::new(), true)
    }

    fn serve(root: PathBuf, headers: Vec<(String, String)>, compress: bool) -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("an address");
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reports = Arc::new(Mutex::new(Vec::new()));
        let site = Arc::new(Site {
            root,
            headers,
            compress,
            compressed: Mutex::default(),
            reports: reports.clone(),
        });
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if stopped.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let site = site.clone();
                std::thread::spawn(move || site.answer(stream));
            }
        });
        StaticServer {
            address,
            stop,
            reports,
        }
    }

    /// The bodies of the violation reports received so far.
    pub fn csp_reports(&self) -> Vec<String> {
        self.reports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The URL of `path_and_query` (which starts with `/`) on this server.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{}", self.address, path_and_query)
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // Wakes the accepting thread, which sees the flag and ends.
        let _ = TcpStream::connect(self.address);
    }
}

/// What a [`StaticServer`] serves, and what it was sent.
struct Site {
    root: PathBuf,
    /// Added to every response.
    headers: Vec<(String, String)>,
    /// Whether files go gzip-encoded (level 9) to a browser that accepts it.
    compress: bool,
    /// Each file compressed once, so that no request waits for deflate twice.
    compressed: Mutex<std::collections::HashMap<String, Vec<u8>>>,
    reports: Arc<Mutex<Vec<String>>>,
}

impl Site {
    /// Reads one request from `stream` and answers it.
    fn answer(&self, mut stream: TcpStream) {
        use std::io::{Read, Write};
        let _ = stream.set_read_timeout(Some(TIMEOUT));
        let mut request = Vec::new();
        let mut buffer = [0u8; 8192];
        let head_end = loop {
            if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(n) => request.extend_from_slice(&buffer[..n]),
            }
        };
        let head = String::from_utf8_lossy(&request[..head_end]).to_string();
        let header_value = |name: &str| {
            head.lines().skip(1).find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
        let (status, kind, body, gzipped) = if target == CSP_REPORT_PATH {
            let length: usize = header_value("Content-Length")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            let mut body = request[head_end..].to_vec();
            while body.len() < length {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => body.extend_from_slice(&buffer[..n]),
                }
            }
            self.reports
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(String::from_utf8_lossy(&body).into_owned());
            ("204 No Content", "text/plain", Vec::new(), false)
        } else if target == EMBED_HOST_PATH {
            let page = EMBED_HOST_PAGE.as_bytes().to_vec();
            ("200 OK", "text/html; charset=utf-8", page, false)
        } else if target == CSP_CANARY_PATH {
            let page =
                "<!doctype html><title>canary</title><script>document.title = 'ran';</script>";
            (
                "200 OK",
                "text/html; charset=utf-8",
                page.as_bytes().to_vec(),
                false,
            )
        } else {
            match file_of(&self.root, &target) {
                Some((kind, body)) => {
                    let gzip = self.compress
                        && header_value("Accept-Encoding").is_some_and(|v| v.contains("gzip"));
                    let body = match gzip {
                        true => {
                            let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
                            let mut cache =
                                self.compressed.lock().unwrap_or_else(|e| e.into_inner());
                            cache.entry(path).or_insert_with(|| gzip9(&body)).clone()
                        }
                        false => body,
                    };
                    ("200 OK", kind, body, gzip)
                }
                None => ("404 Not Found", "text/plain", b"not found".to_vec(), false),
            }
        };
        let mut response = format!(
            "HTTP/1.0 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if gzipped {
            response.push_str("Content-Encoding: gzip\r\n");
        }
        for (name, value) in &self.headers {
            response.push_str(&format!("{name}: {value}\r\n"));
        }
        response.push_str("\r\n");
        let _ = stream.write_all(response.as_bytes());
        let _ = stream.write_all(&body);
    }
}

/// The content type and bytes of the file under `root` that `target` (a
/// request's path and query) names, `index.html` for a folder; `None` for
/// a path outside `root` or no file.
fn file_of(root: &Path, target: &str) -> Option<(&'static str, Vec<u8>)> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let relative = path.trim_start_matches('/');
    let relative = match relative.is_empty() || relative.ends_with('/') {
        true => format!("{relative}index.html"),
        false => relative.to_string(),
    };
    let safe = Path::new(&relative)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    let file = root.join(&relative);
    let body = std::fs::read(&file).ok().filter(|_| safe)?;
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    };
    Some((kind, body))
}

/// The Content-Security-Policy the page must work under: nothing from other
/// hosts, no inline script but Trunk's loader (by its hash, which changes with
/// every build), WebAssembly compilation allowed, violations reported.
pub fn strict_csp(dist: &Path) -> String {
    let index = std::fs::read_to_string(dist.join("index.html")).expect("dist/index.html");
    let hashes = |texts: Vec<&str>| {
        texts
            .iter()
            .map(|text| {
                format!(
                    "'sha256-{}'",
                    BASE64.encode(Sha256::digest(text.as_bytes()))
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {}; style-src 'self' {}; report-uri {CSP_REPORT_PATH}",
        hashes(inline_elements(&index, "script")),
        hashes(inline_elements(&index, "style")),
    )
}

/// The contents of each inline `<script>` of an HTML page.
pub fn inline_scripts(html: &str) -> Vec<&str> {
    inline_elements(html, "script")
}

/// The contents of each inline `<name>` element of an HTML page (`script`
/// or `style`; a script with a `src` is not inline).
pub fn inline_elements<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else {
            break;
        };
        let tag = &after[..open_end];
        let body = &after[open_end + 1..];
        let Some(end) = body.find(&close) else {
            break;
        };
        if !tag.contains("src=") {
            found.push(&body[..end]);
        }
        rest = &body[end..];
    }
    found
}

/// How far a served file may grow past its baseline before the ratchet
/// fails: 2 %. Bytes are a cost to justify, not a wall: the commit that moves
/// the baseline says what they bought (CONTRIBUTING.md).
pub const RATCHET_GROWTH: f64 = 0.02;

/// The checked-in baseline of every served file's gzip -9 bytes.
pub fn baseline_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sizes.baseline")
}

/// A served file's name without the build's content hash
/// (`vram-app-3dfc4c2f2dde19e0_bg.wasm` is `vram-app_bg.wasm`), so that a
/// baseline line names the same file from build to build.
pub fn stable_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(dash) = rest.find('-') {
        let after = &rest[dash + 1..];
        let hex = after.chars().take_while(|c| c.is_ascii_hexdigit()).count();
        out.push_str(&rest[..dash]);
        // Trunk writes its hash as a u64 in hex without leading zeros.
        let hashed =
            (8..=16).contains(&hex) && matches!(after[hex..].chars().next(), Some('.' | '_' | '/'));
        if hashed {
            rest = &after[hex..];
        } else {
            out.push('-');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Every file the page serves (the first view, a lesson link's first paint,
/// the lazily loaded modules, the host pages' embed.js) by its [`stable_name`], with its gzip -9 bytes.
pub fn served_sizes(dist: &Path) -> Vec<(String, u64)> {
    let mut sizes: Vec<(String, u64)> = first_view_sizes(dist)
        .into_iter()
        .map(|f| (stable_name(&f.name), f.gzip))
        .collect();
    for name in [
        "first/vram_first_bg.wasm",
        "first/vram_first.js",
        "lazy/vram_lazy_bg.wasm",
        "lazy/vram_lazy.js",
        "reader/vram_reader_bg.wasm",
        "reader/vram_reader.js",
        "embed.js",
    ] {
        if let Ok(bytes) = std::fs::read(dist.join(name)) {
            sizes.push((name.to_string(), gzip9(&bytes).len() as u64));
        }
    }
    sizes.sort();
    sizes
}

/// Reads a baseline: `bytes<TAB>name` a line, `#` comments.
pub fn read_baseline(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let (bytes, name) = line.split_once('\t')?;
            Some((name.trim().to_string(), bytes.trim().parse().ok()?))
        })
        .collect()
}

/// Writes `sizes` as a baseline.
pub fn write_baseline(sizes: &[(String, u64)]) -> String {
    let mut text = String::from(
        "# gzip -9 bytes of every file the page serves (tests/budget.rs, CONTRIBUTING.md).\n\
         # A file may grow 2 % past its line; the commit that moves a line says what the bytes bought.\n",
    );
    for (name, bytes) in sizes {
        text.push_str(&format!("{bytes}\t{name}\n"));
    }
    text
}

/// What the ratchet refuses: a file more than [`RATCHET_GROWTH`] past its
/// baseline, a file the baseline does not know, a baseline line no file has.
pub fn ratchet(baseline: &[(String, u64)], built: &[(String, u64)]) -> Vec<String> {
    let mut refused = Vec::new();
    for (name, bytes) in built {
        match baseline.iter().find(|(n, _)| n == name) {
            None => refused.push(format!("{name}: {bytes} B, not in the baseline")),
            Some((_, before)) if *bytes as f64 > *before as f64 * (1.0 + RATCHET_GROWTH) => refused
                .push(format!(
                    "{name}: {bytes} B, {:+.1} % past its baseline of {before} B",
                    (*bytes as f64 / *before as f64 - 1.0) * 100.0
                )),
            Some(_) => {}
        }
    }
    for (name, _) in baseline {
        if !built.iter().any(|(n, _)| n == name) {
            refused.push(format!("{name}: in the baseline, not built"));
        }
    }
    refused
}

/// One file of the first view: its name, raw size and gzip -9 size in bytes.
#[derive(Debug, Clone)]
pub struct FileSize {
    /// The file's name in `dist/`.
    pub name: String,
    /// Bytes on disk.
    pub raw: u64,
    /// Bytes after gzip at level 9.
    pub gzip: u64,
}

/// The files of the first view in `dist` (HTML, JS, wasm, CSS, fonts; not the
/// icon, which the browser fetches after the page is shown, nor the host pages'
/// `embed.js`), with their sizes.
pub fn first_view_sizes(dist: &Path) -> Vec<FileSize> {
    // dist/ and its folders (wasm-bindgen's snippets/), but not lazy/ and
    // reader/: what the page imports only when it is used (the plans and
    // exports, the paste box's readers); nor first/, which only a lesson
    // link loads, before the page (crates/first).
    let mut paths = Vec::new();
    let mut folders = vec![dist.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for path in std::fs::read_dir(&folder)
            .expect("dist/")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
        {
            if path.is_dir() {
                if path
                    .file_name()
                    .is_some_and(|n| n != "lazy" && n != "reader" && n != "first")
                {
                    folders.push(path);
                }
            } else {
                paths.push(path);
            }
        }
    }
    let mut sizes: Vec<FileSize> = paths
        .into_iter()
        .filter(|path| {
            let extension = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default();
            // embed.js is for host pages; the calculator does not load it.
            let for_hosts = path.file_name().is_some_and(|n| n == "embed.js");
            !for_hosts
                && matches!(
                    extension,
                    "html" | "js" | "wasm" | "css" | "woff" | "woff2" | "ttf"
                )
        })
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a built file");
            let gzip = gzip9(&bytes).len() as u64;
            FileSize {
                name: path
                    .strip_prefix(dist)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned(),
                raw: bytes.len() as u64,
                gzip,
            }
        })
        .collect();
    sizes.sort_by_key(|file| std::cmp::Reverse(file.gzip));
    sizes
}

/// `bytes` compressed as `gzip -9` does (zlib's deflate at level 9).
pub fn gzip9(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// The folder of the release build.
pub fn dist_dir() -> PathBuf {
    let dist = std::env::var_os("VRAM_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist"));
    assert!(
        dist.join("index.html").is_file(),
        "no built page in {}: run `trunk build --release` first (scripts/test does)",
        dist.display()
    );
    dist
}

/// A chromedriver process on a free port, killed when dropped.
pub struct Chromedriver {
    child: Child,
    port: u16,
}

impl Chromedriver {
    /// Starts `chromedriver` from PATH (or `CHROMEDRIVER`) and waits until it listens.
    pub fn start() -> Chromedriver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let child = Command::new(&program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program} (install chromium-driver): {e}"));
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < TIMEOUT,
                "chromedriver did not listen on port {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Chromedriver { child, port }
    }
}

impl Chromedriver {
    /// The chromedriver of this test process, shared by every session open at
    /// the same time (each test starting a chromedriver and a Chromium beside
    /// another was the first cold run's "connection reset"), started again if
    /// it stopped listening, and killed when the last session holding it ends.
    pub fn shared() -> Arc<Chromedriver> {
        static SHARED: Mutex<Weak<Chromedriver>> = Mutex::new(Weak::new());
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        match shared.upgrade() {
            Some(driver) if TcpStream::connect(("127.0.0.1", driver.port)).is_ok() => driver,
            _ => {
                let driver = Arc::new(Chromedriver::start());
                *shared = Arc::downgrade(&driver);
                driver
            }
        }
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many Chromium sessions this process runs at once: one per core. The
/// tests of one binary run on as many threads, but a test may open a second
/// session, and a 2-core machine starting three Chromiums cold was too slow.
fn session_slots() -> Arc<tokio::sync::Semaphore> {
    static SLOTS: OnceLock<Arc<tokio::sync::Semaphore>> = OnceLock::new();
    SLOTS
        .get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            Arc::new(tokio::sync::Semaphore::new(cores))
        })
        .clone()
}

/// Attempts at creating a WebDriver session before a test fails: a first
/// Chromium start on a new machine (building its font cache) can be slow enough
/// for chromedriver to give up on it.
const SESSION_ATTEMPTS: u32 = 4;

/// A served page and a headless Chromium session to drive it.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    /// The server of the built page.
    pub server: StaticServer,
    /// The Chromium this session started, closed when the `Browser` is
    /// dropped (after the session ends, passes or panics), then its profile
    /// removed: dropped after `client`, before the chromedriver.
    profile: ChromiumProfile,
    _driver: Arc<Chromedriver>,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

impl Browser {
    /// Serves the release build and opens a headless Chromium on it.
    pub async fn start() -> Browser {
        Browser::start_on(StaticServer::start(dist_dir())).await
    }

    /// Opens a headless Chromium on the page that `server` serves.
    pub async fn start_on(server: StaticServer) -> Browser {
        let slot = session_slots()
            .acquire_owned()
            .await
            .expect("the session semaphore is never closed");
        let profile = ChromiumProfile(TempDir::new(PROFILE_PREFIX));
        let mut args = vec![
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--window-size=1280,1000".into(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        args.sort();
        let mut options = json!({ "args": args });
        // The console's messages, for `console_messages`.
        let logging = json!({ "browser": "ALL" });
        if let Ok(binary) = std::env::var("CHROMIUM") {
            options["binary"] = json!(binary);
        } else if Path::new("/usr/bin/chromium").exists() {
            options["binary"] = json!("/usr/bin/chromium");
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), options);
        capabilities.insert("goog:loggingPrefs".into(), logging);
        let mut attempt = 1;
        let (client, driver) = loop {
            let driver = Chromedriver::shared();
            let session =
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                    .capabilities(capabilities.clone())
                    .connect(&format!("http://127.0.0.1:{}", driver.port))
                    .await;
            match session {
                Ok(client) => break (client, driver),
                Err(e) if attempt < SESSION_ATTEMPTS => {
                    eprintln!(
                        "WebDriver session, attempt {attempt} of {SESSION_ATTEMPTS}: {e}; trying again"
                    );
                    tokio::time::sleep(Duration::from_millis(500 * u64::from(attempt))).await;
                    attempt += 1;
                }
                Err(e) => panic!(
                    "a WebDriver session in headless Chromium ({SESSION_ATTEMPTS} attempts): {e}"
                ),
            }
        };
        Browser {
            client,
            server,
            profile,
            _driver: driver,
            _slot: slot,
        }
    }

    /// Opens the page with `query` (empty, or starting with `?`) and waits until
    /// the live page shows its results (the view written at build time
    /// replaced) and has drawn its charts, if it shows any.
    pub async fn open(&self, query: &str) {
        self.client
            .goto(&self.server.url(&format!("/{query}")))
            .await
            .expect("page loads");
        self.wait_until(LIVE_AND_DRAWN, "the live page and its charts")
            .await;
    }

    /// The page's layout shifts since it started (Chromium's buffered
    /// `layout-shift` entries), summed as the CLS score sums them.
    pub async fn layout_shift(&self) -> f64 {
        const SUMMED: &str = "
            return new Promise((done) => {
                new PerformanceObserver((list) => {
                    done(list.getEntries().reduce((sum, e) => sum + (e.hadRecentInput ? 0 : e.value), 0));
                }).observe({ type: 'layout-shift', buffered: true });
                setTimeout(() => done(0), 500);
            });";
        self.eval(SUMMED).await.as_f64().unwrap_or(f64::NAN)
    }

    /// Waits until `script` returns `true`.
    pub async fn wait_until(&self, script: &str, what: &str) {
        let started = Instant::now();
        while self.eval(script).await != json!(true) {
            if started.elapsed() > TIMEOUT {
                let state = self
                    .eval(
                        "return [document.querySelectorAll('main').length, \
                         !!document.querySelector('main[data-prerendered]'), \
                         document.documentElement.className, \
                         performance.getEntriesByName('vram-first-figure').length, \
                         performance.getEntriesByName('vram-chart-drawn').length, \
                         performance.getEntriesByType('resource').map(e => e.name), \
                         document.readyState, typeof window.wasmBindings, document.documentElement.outerHTML.length, \
                         [...document.scripts].map(s => s.type + ':' + s.src + ':' + s.textContent.slice(0, 300))]",
                    )
                    .await;
                let console = self.console_messages().await;
                panic!("never: {what}; main elements, written view, <html> class, marks of the first figure and of a chart drawn, resources: {state}; console: {console:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The unrounded figure of `data-testid=id`.
    pub async fn figure(&self, id: &str) -> f64 {
        let text = self.attribute(id, "data-value").await;
        text.parse()
            .unwrap_or_else(|_| panic!("{id}: data-value {text:?} is not a number"))
    }

    /// An attribute of the element with `data-testid=id`.
    pub async fn attribute(&self, id: &str, name: &str) -> String {
        let element = self
            .client
            .find(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap_or_else(|e| panic!("no element {id}: {e}"));
        element
            .attr(name)
            .await
            .expect("attribute read")
            .unwrap_or_else(|| panic!("{id} has no {name}"))
    }

    /// The text of the element with `data-testid=id`.
    pub async fn text(&self, id: &str) -> String {
        let element = self
            .client
            .find(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap_or_else(|e| panic!("no element {id}: {e}"));
        element.text().await.expect("text read")
    }

    /// Waits until the address bar's query contains `needle`, and returns the query.
    pub async fn wait_for_query(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let url = self.client.current_url().await.expect("current URL");
            let query = url.query().unwrap_or_default().to_string();
            if query.contains(needle) {
                return query;
            }
            assert!(
                started.elapsed() < TIMEOUT,
                "the link never contained {needle:?}: {query}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs `script` in the page and returns its result.
    pub async fn eval(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, vec![])
            .await
            .expect("script runs")
    }

    /// Runs a Chrome DevTools Protocol command in this session through
    /// chromedriver (`goog/cdp/execute`), e.g. `Network.emulateNetworkConditions`.
    pub async fn cdp(&self, command: &str, params: serde_json::Value) {
        let body = json!({ "cmd": command, "params": params });
        self.driver_post("goog/cdp/execute", &body).await;
    }

    /// The browser's console messages since the last call, of the page and of
    /// every frame in it (chromedriver's log of type `browser`): each as
    /// `LEVEL text`.
    pub async fn console_messages(&self) -> Vec<String> {
        let answer = self
            .driver_post("se/log", &json!({ "type": "browser" }))
            .await;
        answer["value"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| {
                format!(
                    "{} {}",
                    entry["level"].as_str().unwrap_or_default(),
                    entry["message"].as_str().unwrap_or_default()
                )
            })
            .collect()
    }

    /// POSTs `body` to chromedriver's `/session/{id}/{path}` and returns its answer.
    async fn driver_post(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        let session = self
            .client
            .session_id()
            .await
            .expect("the session's id")
            .expect("an open session");
        let body = body.to_string();
        let mut stream =
            TcpStream::connect(("127.0.0.1", self._driver.port)).expect("chromedriver listens");
        let request = format!(
            "POST /session/{session}/{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        std::io::Write::write_all(&mut stream, request.as_bytes()).expect("request sent");
        // chromedriver may keep the connection open: read the head, then the
        // body's Content-Length bytes.
        stream
            .set_read_timeout(Some(TIMEOUT))
            .expect("a read timeout");
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = std::io::Read::read(&mut stream, &mut buffer).expect("chromedriver answers");
            received.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&received).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {body}");
                    return serde_json::from_str(body).unwrap_or_default();
                }
            }
            assert!(n > 0, "chromedriver closed the connection early");
        }
    }

    /// Ends the session (dropping the `Browser` closes its Chromium too).
    pub async fn close(self) {
        let _ = self.client.close().await;
    }

    /// The profile folder of this session's Chromium (`--user-data-dir`).
    pub fn profile(&self) -> &Path {
        self.profile.path()
    }
}

/// What every e2e profile folder's name starts with: `scripts/test` looks for
/// a Chromium still running with such a profile once the tests have ended.
pub const PROFILE_PREFIX: &str = "vram-e2e-profile";

/// A Chromium's profile folder, and the guard that closes that Chromium.
///
/// chromedriver starts a Chromium per session and closes it only when asked
/// to end the session; a test that panics (or forgets `close`) never asks, and
/// killing chromedriver leaves its browsers running. On drop this kills every
/// process started with this profile and all their descendants (renderers, the
/// GPU and zygote processes), waits until they are gone, then removes the folder.
struct ChromiumProfile(TempDir);

impl ChromiumProfile {
    fn path(&self) -> &Path {
        &self.0 .0
    }
}

impl Drop for ChromiumProfile {
    fn drop(&mut self) {
        let started = Instant::now();
        loop {
            let running = processes_using_profile(self.path());
            if running.is_empty() {
                break;
            }
            for pid in &running {
                // SIGKILL: a browser whose session has ended has nothing to save.
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
            if started.elapsed() > Duration::from_secs(10) {
                eprintln!("Chromium processes {running:?} outlived their session");
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The live processes whose command line names `profile` (Chromium's
/// `--user-data-dir=…`), with every descendant of theirs: read from `/proc`.
pub fn processes_using_profile(profile: &Path) -> Vec<u32> {
    let needle = format!("--user-data-dir={}", profile.display());
    let processes = live_processes();
    let mut found: Vec<u32> = processes
        .iter()
        .filter(|p| p.command_line.contains(&needle))
        .map(|p| p.pid)
        .collect();
    // Descendants, breadth first: a renderer's command line need not name the profile.
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        for p in &processes {
            if p.parent == parent && !found.contains(&p.pid) {
                found.push(p.pid);
            }
        }
        next += 1;
    }
    found
}

/// The live processes with a command line naming an e2e profile folder
/// (`PROFILE_PREFIX`), whichever test started them.
pub fn processes_using_any_profile() -> Vec<u32> {
    live_processes()
        .into_iter()
        .filter(|p| p.command_line.contains(PROFILE_PREFIX))
        .map(|p| p.pid)
        .collect()
}

struct Process {
    pid: u32,
    parent: u32,
    command_line: String,
}

/// Every process in `/proc` but zombies (they hold no memory and go with their parent).
fn live_processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (name) state ppid …`: the name may hold spaces and parentheses.
            let after_name = &stat[stat.rfind(')')? + 2..];
            let mut fields = after_name.split(' ');
            let state = fields.next()?;
            let parent = fields.next()?.parse().ok()?;
            if state == "Z" || state == "X" {
                return None;
            }
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let command_line = String::from_utf8_lossy(&raw).replace('\0', " ");
            Some(Process {
                pid,
                parent,
                command_line,
            })
        })
        .collect()
}

/// A temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty folder under the system's temporary folder.
    pub fn new(prefix: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("a temporary folder");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"swarm/supervisor"
)

// Files in the cluster directory (.swarm/cluster).
const (
	certFile   = "cert.pem"
	keyFile    = "key.pem"
	hostsFile  = "hosts.json"
	adminFile  = "admin.secret"
	spaceFile  = "space"
	streamDir  = "jetstream"
	adminUser  = "swarm-admin"
	urlScheme  = "swarm"
	secretSize = 24
	// lockFile is held while a file here is made on first use, or
	// hosts.json changed: swarm up and swarm invite run at once each made
	// a certificate, and the join URL named the one the swarm did not
	// serve (its host refused as talking to a stranger); two invitations
	// at once each wrote hosts.json without the other's secret.
	lockFile = "lock"
)

// locked runs fn holding the cluster directory dir's lock (made if
// need be), which every process that writes there takes.
func locked[T any](dir string, fn func() (T, error)) (T, error) {
	var zero T
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return zero, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return zero, err
	}
	defer f.Close() // lets the lock go
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return zero, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return fn()
}

// Dir is the cluster directory of a swarm whose bus is in busDir.
func Dir(busDir string) string { return filepath.Join(busDir, "cluster") }

// loadOrMakeCert returns the main swarm's certificate, made (ECDSA P-256,
// self-signed, ten years) on first use. Hosts pin its fingerprint, so its
// names matter to nobody.
func loadOrMakeCert(dir string) (tls.Certificate, error) {
	return locked(dir, func() (tls.Certificate, error) { return loadOrMakeCertLocked(dir) })
}

func loadOrMakeCertLocked(dir string) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dir, certFile), filepath.Join(dir, keyFile)
	if c, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil {
		return c, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return tls.Certificate{}, fmt.Errorf("cluster certificate %s: %w", certPath, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "swarm cluster"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := writeFileAtomic(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := writeFileAtomic(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.LoadX509KeyPair(certPath, keyPath)
}

// fingerprint is how a join URL names a certificate: "sha256:" and the
// hex SHA-256 of its DER.
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// newSecret is a random secret, URL-safe.
func newSecret() (string, error) {
	b := make([]byte, secretSize)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// hostSecrets reads hosts.json: each invited host's secret.
func hostSecrets(dir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, hostsFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, hostsFile), err)
	}
	return m, nil
}

// adminSecret returns the secret of the main swarm's own connection and
// of `swarm hosts`, made on first use.
func adminSecret(dir string) (string, error) {
	return locked(dir, func() (string, error) {
		p := filepath.Join(dir, adminFile)
		if b, err := os.ReadFile(p); err == nil {
			return strings.TrimSpace(string(b)), nil
		}
		s, err := newSecret()
		if err != nil {
			return "", err
		}
		return s, writeFileAtomic(p, []byte(s+"\n"), 0o600)
	})
}

// spaceOf is the space of the main swarm whose cluster state is in dir
// under [cluster] c: "" with the server swarm embeds, which carries this
// swarm alone; on an existing NATS server, which other swarms may share,
// an id made on first use and kept in dir.
func spaceOf(dir string, c supervisor.ClusterConfig) (space, error) {
	if c.NATS == "" {
		return "", nil
	}
	return locked(dir, func() (space, error) {
		p := filepath.Join(dir, spaceFile)
		if b, err := os.ReadFile(p); err == nil {
			return space(strings.TrimSpace(string(b))), nil
		}
		var id [5]byte
		if _, err := rand.Read(id[:]); err != nil {
			return "", err
		}
		s := hex.EncodeToString(id[:])
		return space(s), writeFileAtomic(p, []byte(s+"\n"), 0o600)
	})
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Invite returns the join URL of host name for the main swarm whose bus
// is in busDir and which listens at listen: the same URL each time (the
// host's secret is made on its first invitation and kept in hosts.json).
// The certificate is made here if the swarm has not made it yet.
//
// With [cluster] nats, the URL carries that server's URL (and whatever
// credentials it has): that server, not swarm, says who may connect.
func Invite(busDir string, c supervisor.ClusterConfig, name string) (string, error) {
	if err := supervisor.CheckHostName(name); err != nil {
		return "", err
	}
	if c.NATS != "" {
		sp, err := spaceOf(Dir(busDir), c)
		if err != nil {
			return "", err
		}
		return JoinURL{Host: name, NATS: c.NATS, Space: string(sp)}.String(), nil
	}
	listen := c.Listen
	dir := Dir(busDir)
	cert, err := loadOrMakeCert(dir)
	if err != nil {
		return "", err
	}
	secret, err := locked(dir, func() (string, error) {
		secrets, err := hostSecrets(dir)
		if err != nil {
			return "", err
		}
		if secret, ok := secrets[name]; ok {
			return secret, nil
		}
		secret, err := newSecret()
		if err != nil {
			return "", err
		}
		secrets[name] = secret
		data, _ := json.MarshalIndent(secrets, "", "  ")
		return secret, writeFileAtomic(filepath.Join(dir, hostsFile), data, 0o600)
	})
	if err != nil {
		return "", err
	}
	return JoinURL{Addr: dialAddr(listen), Host: name, Secret: secret, Fingerprint: fingerprint(cert.Certificate[0])}.String(), nil
}

// ErrNotInvited is a revocation of a host that has no invitation.
var ErrNotInvited = errors.New("was not invited")

// Revoke ends host name's invitation: its URL no longer joins (a running
// main swarm disconnects it within seconds); a new invitation makes a
// new secret.
func Revoke(busDir, name string) error {
	dir := Dir(busDir)
	_, err := locked(dir, func() (struct{}, error) {
		secrets, err := hostSecrets(dir)
		if err != nil {
			return struct{}{}, err
		}
		if _, ok := secrets[name]; !ok {
			return struct{}{}, fmt.Errorf("host %s %w (nothing to revoke)", name, ErrNotInvited)
		}
		delete(secrets, name)
		data, _ := json.MarshalIndent(secrets, "", "  ")
		return struct{}{}, writeFileAtomic(filepath.Join(dir, hostsFile), data, 0o600)
	})
	return err
}

// dialAddr is the address to dial for a listen address: an unspecified
// host (":7422", "0.0.0.0:7422") is this machine's name, which another
// machine can resolve; a person may edit it in the URL.
func dialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "127.0.0.1"
		}
	}
	return net.JoinHostPort(host, port)
}

// JoinURL is what `swarm host` needs to join a main swarm:
// swarm://HOST:PORT/NAME?secret=S&fp=sha256:HEX, or, where the main
// swarm uses an existing NATS server, swarm:///NAME?nats=URL.
type JoinURL struct {
	Addr        string // host:port of the main swarm
	Host        string // the host's name
	Secret      string
	Fingerprint string // of the main swarm's certificate
	NATS        string // the existing NATS server's URL, instead of the three above
	Space       string // with NATS: the main swarm's space on that server
}

func (u JoinURL) String() string {
	q := url.Values{"secret": {u.Secret}, "fp": {u.Fingerprint}}
	if u.NATS != "" {
		q = url.Values{"nats": {u.NATS}, "space": {u.Space}}
	}
	return (&url.URL{Scheme: urlScheme, Host: u.Addr, Path: "/" + u.Host, RawQuery: q.Encode()}).String()
}

// Where is the server a host connects to, as a message says it.
func (u JoinURL) Where() string {
	if u.NATS != "" {
		return "NATS at " + redacted(u.NATS)
	}
	return "main swarm at " + u.Addr
}

// ParseJoinURL reads a join URL, with a one-line error saying what is
// wrong with it.
func ParseJoinURL(s string) (JoinURL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme != urlScheme {
		return JoinURL{}, fmt.Errorf("%q is not a join URL (swarm://HOST:PORT/NAME?secret=…&fp=…, printed by swarm invite NAME)", s)
	}
	j := JoinURL{Addr: u.Host, Host: strings.TrimPrefix(u.Path, "/"), Secret: u.Query().Get("secret"), Fingerprint: u.Query().Get("fp"), NATS: u.Query().Get("nats"), Space: u.Query().Get("space")}
	if j.NATS != "" {
		if !validSpace(j.Space) {
			return JoinURL{}, errors.New("join URL: it has no swarm space (space=…); copy the whole line swarm invite printed")
		}
		if err := supervisor.CheckNATSURL(j.NATS); err != nil {
			return JoinURL{}, fmt.Errorf("join URL: %w", err)
		}
		if err := supervisor.CheckHostName(j.Host); err != nil {
			return JoinURL{}, fmt.Errorf("join URL: %w", err)
		}
		return j, nil
	}
	if _, _, err := net.SplitHostPort(j.Addr); err != nil {
		return JoinURL{}, fmt.Errorf("join URL: %q is not HOST:PORT", j.Addr)
	}
	if err := supervisor.CheckHostName(j.Host); err != nil {
		return JoinURL{}, fmt.Errorf("join URL: %w", err)
	}
	if j.Secret == "" {
		return JoinURL{}, errors.New("join URL: it has no secret (secret=…); copy the whole line swarm invite printed")
	}
	if !strings.HasPrefix(j.Fingerprint, "sha256:") || len(j.Fingerprint) != len("sha256:")+64 {
		return JoinURL{}, errors.New("join URL: it has no certificate fingerprint (fp=sha256:…); copy the whole line swarm invite printed")
	}
	return j, nil
}

// QueryHosts asks the main swarm whose bus is in busDir, with [cluster]
// c, for its hosts (`swarm hosts`).
func QueryHosts(busDir string, c supervisor.ClusterConfig) ([]HostInfo, error) {
	if c.NATS != "" {
		sp, err := spaceOf(Dir(busDir), c)
		if err != nil {
			return nil, err
		}
		nc, err := nats.Connect(c.NATS, nats.Name("swarm hosts"), nats.Timeout(5*time.Second))
		if err != nil {
			return nil, fmt.Errorf("the NATS server at %s: %v", redacted(c.NATS), err)
		}
		defer nc.Close()
		return askHosts(nc, sp, "NATS at "+redacted(c.NATS))
	}
	listen := c.Listen
	dir := Dir(busDir)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certFile), filepath.Join(dir, keyFile))
	if err != nil {
		return nil, fmt.Errorf("no cluster here (%s has no certificate): is the swarm with [cluster] running?", dir)
	}
	admin, err := os.ReadFile(filepath.Join(dir, adminFile))
	if err != nil {
		return nil, fmt.Errorf("no cluster here (%s has no admin secret): is the swarm with [cluster] running?", dir)
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, err
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	u := JoinURL{Addr: net.JoinHostPort(host, port), Host: adminUser, Secret: strings.TrimSpace(string(admin)), Fingerprint: fingerprint(cert.Certificate[0])}
	nc, err := Dial(u, "swarm hosts")
	if err != nil {
		return nil, fmt.Errorf("is the swarm running? %w", err)
	}
	defer nc.Close()
	return askHosts(nc, "", "main swarm at "+u.Addr)
}

// askHosts asks the main swarm of space sp for its hosts on nc.
func askHosts(nc *nats.Conn, sp space, where string) ([]HostInfo, error) {
	reply, err := nc.Request(sp.adminHosts(), nil, 5*time.Second)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, fmt.Errorf("%s: no main swarm answers (is it running?)", where)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	var hosts []HostInfo
	if err := json.Unmarshal(reply.Data, &hosts); err != nil {
		return nil, err
	}
	return hosts, nil
}

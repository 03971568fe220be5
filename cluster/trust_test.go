package cluster

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"swarm/supervisor"
)

// TestFilesMadeOnFirstUseAreMadeOnce: the main swarm starting and swarm
// invite run at once (a person, or a script, invites a host right after
// swarm up) both find no certificate and make one: each must end with
// the same one, the one the swarm serves, or the join URL names a
// certificate nobody serves and the host is refused as talking to a
// stranger (a CI run lost a host so). Invitations of several hosts at
// once each keep their secret.
func TestFilesMadeOnFirstUseAreMadeOnce(t *testing.T) {
	t.Parallel()
	c := supervisor.ClusterConfig{Listen: "127.0.0.1:7422"}
	for round := range 20 {
		busDir := t.TempDir()
		dir := Dir(busDir)
		const n = 6
		var wg sync.WaitGroup
		urls := make([]string, n)
		served := make([]string, n)
		admins := make([]string, n)
		errs := make([]error, 2*n)
		for i := range n {
			wg.Go(func() { // swarm invite hN
				urls[i], errs[i] = Invite(busDir, c, fmt.Sprintf("h%d", i))
			})
			wg.Go(func() { // swarm up: the certificate it serves and its admin secret
				cert, err := loadOrMakeCert(dir)
				if err == nil {
					served[i] = fingerprint(cert.Certificate[0])
					admins[i], err = adminSecret(dir)
				}
				errs[n+i] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		secrets, err := hostSecrets(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			u, err := ParseJoinURL(urls[i])
			if err != nil {
				t.Fatal(err)
			}
			if u.Fingerprint != served[0] || served[i] != served[0] {
				t.Fatalf("round %d: h%d's join URL names %s; the swarm serves %v", round, i, u.Fingerprint, served)
			}
			if secrets[u.Host] != u.Secret {
				t.Fatalf("round %d: %s's join URL has secret %s, %s has %q", round, u.Host, u.Secret, filepath.Join(dir, hostsFile), secrets[u.Host])
			}
			if admins[i] != admins[0] {
				t.Fatalf("round %d: the admin secrets differ: %q", round, admins)
			}
		}
	}
}

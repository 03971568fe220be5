package bus

import (
	"errors"
	"testing"
	"time"
)

func TestClaims(t *testing.T) {
	b := openTest(t)
	ok, err := b.Claim(ctx, "merge", "alice", time.Hour)
	if err != nil || !ok {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, _ := b.Claim(ctx, "merge", "bob", time.Hour); ok {
		t.Error("bob took a held lease")
	}
	if ok, _ := b.Claim(ctx, "merge", "alice", time.Hour); !ok {
		t.Error("re-claim by the holder failed")
	}
	if owner, until, _ := b.Holder(ctx, "merge"); owner != "alice" || time.Until(until) < 59*time.Minute {
		t.Errorf("holder %s until %v", owner, until)
	}
	if err := b.Renew(ctx, "merge", "bob", time.Hour); !errors.Is(err, ErrNotOwner) {
		t.Errorf("renew by non-owner: %v", err)
	}
	if err := b.Release(ctx, "merge", "bob"); !errors.Is(err, ErrNotOwner) {
		t.Errorf("release by non-owner: %v", err)
	}
	if err := b.Release(ctx, "merge", "alice"); err != nil {
		t.Fatal(err)
	}
	if err := b.Release(ctx, "merge", "alice"); err != nil {
		t.Errorf("releasing a free key: %v", err)
	}
	if owner, _, _ := b.Holder(ctx, "merge"); owner != "" {
		t.Errorf("released key held by %q", owner)
	}
	if ok, _ := b.Claim(ctx, "merge", "bob", time.Hour); !ok {
		t.Error("claim after release failed")
	}
}

func TestExpiredLeaseCanBeTakenOver(t *testing.T) {
	b := openTest(t)
	if ok, err := b.Claim(ctx, "task:abc", "alice", time.Millisecond); !ok || err != nil {
		t.Fatal(ok, err)
	}
	waitFor(t, "the lease to expire", func() bool {
		owner, _, err := b.Holder(ctx, "task:abc")
		return err == nil && owner == ""
	})
	// Not taken over yet: the old owner may still renew it.
	if err := b.Renew(ctx, "task:abc", "alice", time.Millisecond); err != nil {
		t.Errorf("renewing an expired, untaken lease: %v", err)
	}
	waitFor(t, "the lease to expire again", func() bool {
		ok, err := b.Claim(ctx, "task:abc", "bob", time.Hour)
		return err == nil && ok
	})
	if err := b.Renew(ctx, "task:abc", "alice", time.Hour); !errors.Is(err, ErrNotOwner) {
		t.Errorf("old owner renewing a taken lease: %v", err)
	}
	if owner, _, _ := b.Holder(ctx, "task:abc"); owner != "bob" {
		t.Errorf("holder %q", owner)
	}
	if _, err := b.Claim(ctx, "", "x", time.Second); err == nil {
		t.Error("empty key accepted")
	}
}

package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Claim tries to take the lease on key for owner until lease from now.
// It succeeds if nobody holds key, if the previous lease has expired, or
// if owner already holds it (which extends the lease); it reports false,
// without error, if someone else holds an unexpired lease.
func (b *Bus) Claim(ctx context.Context, key, owner string, lease time.Duration) (bool, error) {
	if key == "" || owner == "" || lease <= 0 {
		return false, fmt.Errorf("claim %q: key, owner and a positive lease are required", key)
	}
	now := time.Now()
	res, err := b.exec(ctx, `INSERT INTO task_claims (key, owner, lease_until_ms) VALUES (?1, ?2, ?3)
		ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, lease_until_ms = excluded.lease_until_ms
		WHERE task_claims.owner = excluded.owner OR task_claims.lease_until_ms <= ?4`,
		key, owner, ms(now.Add(lease)), ms(now))
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", key, err)
	}
	return n == 1, nil
}

// Renew extends owner's lease on key to lease from now. It fails with
// ErrNotOwner if owner does not hold key. A lease that expired but was not
// taken over is still owner's and can be renewed.
func (b *Bus) Renew(ctx context.Context, key, owner string, lease time.Duration) error {
	if lease <= 0 {
		return fmt.Errorf("renew %s: lease must be positive", key)
	}
	res, err := b.exec(ctx, `UPDATE task_claims SET lease_until_ms = ? WHERE key = ? AND owner = ?`,
		ms(time.Now().Add(lease)), key, owner)
	if err != nil {
		return fmt.Errorf("renew %s: %w", key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("renew %s for %s: %w", key, owner, ErrNotOwner)
	}
	return nil
}

// Release gives up owner's lease on key. Releasing a key nobody holds is a
// no-op; releasing one held by someone else fails with ErrNotOwner.
func (b *Bus) Release(ctx context.Context, key, owner string) error {
	return b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		var holder string
		err := tx.QueryRowContext(ctx, `SELECT owner FROM task_claims WHERE key = ?`, key).Scan(&holder)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("release %s: %w", key, err)
		}
		if holder != owner {
			return false, fmt.Errorf("release %s: held by %s, not %s: %w", key, holder, owner, ErrNotOwner)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM task_claims WHERE key = ?`, key)
		return false, err
	})
}

// Holder returns who holds an unexpired lease on key and until when; an
// empty owner means the key is free.
func (b *Bus) Holder(ctx context.Context, key string) (owner string, until time.Time, err error) {
	var untilMS int64
	err = b.rq().QueryRowContext(ctx, `SELECT owner, lease_until_ms FROM task_claims WHERE key = ? AND lease_until_ms > ?`,
		key, ms(time.Now())).Scan(&owner, &untilMS)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("claim holder %s: %w", key, err)
	}
	return owner, fromMS(untilMS), nil
}

package pgwire

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestBruteForce sends 1,000 wrong passwords in a row, from 40
// connections at a time, while an established session runs queries and
// other clients log in, and checks that the guesses slow neither: each
// failed guess waits out the failure delay on its own connection, and a
// wrong SCRAM proof costs the server two HMACs. The session's latency
// during the attack is compared with its latency before, in the same run.
func TestBruteForce(t *testing.T) {
	const (
		guesses   = 1000
		attackers = 40
		delay     = 200 * time.Millisecond
		// A session that waited behind a guess would take a whole delay;
		// the bounds below are half of it, far above the noise of a busy
		// machine, and are put on medians and the 90th percentile, which
		// such waiting would move and a few descheduled queries do not.
		bound = delay / 2
	)
	auth := AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets, FailureDelay: delay}
	ts := startServer(t, Config{Auth: auth, Roles: testRoles()})
	session := connectPgx(t, ts.addr, "user=alice", "password=s3cret")
	before := queryLatencies(t, session, 300, nil)

	var sent, refused atomic.Int64
	attackDone := make(chan struct{})
	start := time.Now()
	var wg sync.WaitGroup
	for range attackers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sent.Add(1) <= guesses {
				if code, err := guess(ts.addr, "alice"); err != nil {
					t.Error(err)
					return
				} else if code == "28P01" {
					refused.Add(1)
				}
			}
		}()
	}
	go func() { wg.Wait(); close(attackDone) }()

	var logins []time.Duration
	loginsDone := make(chan struct{})
	go func() {
		defer close(loginsDone)
		for {
			select {
			case <-attackDone:
				return
			case <-time.After(100 * time.Millisecond):
			}
			t0 := time.Now()
			conn, err := connectPgxErr(t, ts.addr, "user=alice", "password=s3cret")
			if err != nil {
				t.Errorf("login during the attack: %v", err)
				return
			}
			logins = append(logins, time.Since(t0))
			conn.Close(context.Background())
		}
	}()
	during := queryLatencies(t, session, 0, attackDone)
	<-loginsDone
	attack := time.Since(start)

	if refused.Load() != guesses {
		t.Fatalf("%d of %d guesses refused with 28P01", refused.Load(), guesses)
	}
	if min := guesses / attackers * delay; attack < min {
		t.Errorf("attack took %v, less than the %v the failure delay imposes", attack, min)
	}
	if len(logins) == 0 {
		t.Fatal("no login during the attack")
	}
	b50, b90 := percentile(before, 50), percentile(before, 90)
	d50, d90 := percentile(during, 50), percentile(during, 90)
	l50 := percentile(logins, 50)
	t.Logf("%d guesses in %v (%.0f/s); session SELECT 1: before p50 %v p90 %v (%d queries), during p50 %v p90 %v max %v (%d queries); %d logins during, p50 %v max %v",
		guesses, attack.Round(time.Millisecond), guesses/attack.Seconds(), b50, b90, len(before), d50, d90, slices.Max(during), len(during),
		len(logins), l50, slices.Max(logins))
	if d50 > 3*b50+time.Millisecond {
		t.Errorf("median query latency %v during the attack, %v before", d50, b50)
	}
	if d90 >= bound {
		t.Errorf("p90 query latency %v during the attack: sessions waited on guesses", d90)
	}
	if l50 >= bound {
		t.Errorf("median login during the attack took %v: logins waited on guesses", l50)
	}
}

// guess tries one wrong password over SCRAM with a raw client (a random
// proof: the server's work is the same as for any wrong password, without
// the client's PBKDF2) and returns the SQLSTATE it is refused with.
func guess(addr, user string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(startupPacket(196608, "user", user, "database", "db"))
	fe := pgproto3.NewFrontend(conn, conn)
	var proof [32]byte
	rand.Read(proof[:])
	for {
		msg, err := fe.Receive()
		if err != nil {
			return "", err
		}
		switch m := msg.(type) {
		case *pgproto3.AuthenticationSASL:
			fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=guesser")})
		case *pgproto3.AuthenticationSASLContinue:
			final := "c=biws,r=" + nonceOf(string(m.Data)) + ",p=" + base64.StdEncoding.EncodeToString(proof[:])
			fe.Send(&pgproto3.SASLResponse{Data: []byte(final)})
		case *pgproto3.ErrorResponse:
			return m.Code, nil
		default:
			return "", fmt.Errorf("unexpected %T", msg)
		}
		if err := fe.Flush(); err != nil {
			return "", err
		}
	}
}

// queryLatencies times SELECT 1 on conn: n times, or until done is closed.
func queryLatencies(t *testing.T, conn *pgx.Conn, n int, done <-chan struct{}) []time.Duration {
	t.Helper()
	var out []time.Duration
	for i := 0; n == 0 || i < n; i++ {
		if done != nil {
			select {
			case <-done:
				return out
			default:
			}
		}
		t0 := time.Now()
		var one int32
		if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatal(err)
		}
		out = append(out, time.Since(t0))
		time.Sleep(2 * time.Millisecond)
	}
	return out
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

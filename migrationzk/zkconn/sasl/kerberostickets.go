package sasl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/krberror"
	"github.com/jcmturner/gokrb5/v8/types"
)

// refreshMargin is how long before its end a ticket is replaced before
// use: a fifth of its lifetime, and at least five seconds (half of it for
// a ticket shorter than ten), so that the server never sees a ticket
// about to end.
func refreshMargin(lifetime time.Duration) time.Duration {
	return max(lifetime/5, min(5*time.Second, lifetime/2))
}

// aheadMargin is how long before its end a ticket is replaced in the
// background after a connection used it: a third of its lifetime, so that
// the next connection finds a fresh one without asking the KDC.
func aheadMargin(lifetime time.Duration) time.Duration {
	return max(lifetime/3, refreshMargin(lifetime))
}

// fresh reports whether t is valid at now and ends later than margin of
// its lifetime from now.
func (t *ticket) fresh(now time.Time, margin func(time.Duration) time.Duration) bool {
	return t != nil && now.Before(t.end.Add(-margin(t.end.Sub(t.start))))
}

// ticketStore holds one client's ticket-granting ticket and service
// tickets, and gets new ones from the KDC before they end.
type ticketStore struct {
	creds credentialSource
	now   func() time.Time // the clock that decides freshness

	mu         sync.Mutex // held during KDC exchanges: one at a time
	tgt        *ticket
	services   map[string]*ticket // by service principal name@realm
	refreshing bool               // a background refresh is under way
	logins     int                // ticket-granting tickets obtained
	fetches    int                // service tickets obtained
}

func newTicketStore(creds credentialSource) *ticketStore {
	return &ticketStore{creds: creds, now: time.Now, services: map[string]*ticket{}}
}

// serviceTicket returns a fresh ticket for spn in realm, from the KDC
// when the one held is not fresh, within ctx.
func (s *ticketStore) serviceTicket(ctx context.Context, spn, realm string) (*ticket, error) {
	type result struct {
		t   *ticket
		err error
	}
	done := make(chan result, 1)
	go func() {
		t, err := s.get(spn, realm, refreshMargin)
		done <- result{t, err}
	}()
	select {
	case r := <-done:
		return r.t, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("get a ticket for %s@%s: %w", spn, realm, ctx.Err())
	}
}

// refreshAhead replaces, in the background, the tickets for spn that are
// past two thirds of their lifetime.
func (s *ticketStore) refreshAhead(spn, realm string) {
	s.mu.Lock()
	now := s.now()
	due := !s.tgt.fresh(now, aheadMargin) || !s.services[spn+"@"+realm].fresh(now, aheadMargin)
	if !due || s.refreshing {
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.mu.Unlock()
	go func() {
		// Errors are reported by the next connection that needs a ticket.
		_, _ = s.get(spn, realm, aheadMargin)
		s.mu.Lock()
		s.refreshing = false
		s.mu.Unlock()
	}()
}

// get returns the service ticket for spn, fetching it (and a
// ticket-granting ticket first) when the one held is not fresh by margin.
func (s *ticketStore) get(spn, realm string, margin func(time.Duration) time.Duration) (*ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := spn + "@" + realm
	now := s.now()
	if t := s.services[key]; t.fresh(now, margin) {
		return t, nil
	}
	if !s.tgt.fresh(now, margin) {
		tgt, err := s.creds.login(s.tgt)
		if err != nil {
			return nil, err
		}
		s.tgt = tgt
		s.logins++
	}
	if t := s.services[key]; t != nil && now.Before(t.end) && !t.end.Before(s.tgt.end) {
		// It lasts as long as the ticket-granting ticket allows: a
		// new one would end no later.
		return t, nil
	}
	sname := types.NewPrincipalName(nametype.KRB_NT_SRV_INST, spn)
	_, rep, err := s.creds.kdc().TGSREQGenerateAndExchange(sname, realm, s.tgt.ticket, s.tgt.key, false)
	if err != nil {
		return nil, fmt.Errorf("get a service ticket for %s: %w", key, err)
	}
	t := kdcTicket(rep.Ticket, rep.DecryptedEncPart)
	s.services[key] = t
	s.fetches++
	return t, nil
}

// counts returns how many ticket-granting and service tickets the store
// has obtained.
func (s *ticketStore) counts() (logins, fetches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins, s.fetches
}

// ticketFailure classifies an error getting tickets: no KDC answered in
// time (KDCUnreachable) or anything else, such as a principal the KDC
// does not know or a key it refuses (ClientFailure).
func ticketFailure(server string, err error) *Error {
	failure := ClientFailure
	var ke krberror.Krberror
	if (errors.As(err, &ke) && ke.RootCause == krberror.NetworkingError) ||
		errors.Is(err, context.DeadlineExceeded) {
		failure = KDCUnreachable
	}
	return &Error{Mechanism: gssapiName, Server: server, Failure: failure, Err: err}
}

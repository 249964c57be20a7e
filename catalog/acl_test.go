package catalog

import (
	"reflect"
	"testing"
)

// TestNewOwnerACL checks the ACL an owner change leaves, as PostgreSQL's
// aclnewowner computes it.
func TestNewOwnerACL(t *testing.T) {
	const alice, bob, carol = 10, 11, 12
	all := KindTable.Applicable()
	for _, tc := range []struct {
		name     string
		acl, out []Grant
	}{
		{name: "default", acl: nil, out: nil},
		{
			name: "owner's grants move",
			acl:  []Grant{{Grantee: alice, Grantor: alice, Privs: all}, {Grantee: carol, Grantor: alice, Privs: PrivSelect}},
			out:  []Grant{{Grantee: bob, Grantor: bob, Privs: all}, {Grantee: carol, Grantor: bob, Privs: PrivSelect}},
		},
		{
			name: "the new owner's grant merges",
			acl:  []Grant{{Grantee: alice, Grantor: alice, Privs: all}, {Grantee: bob, Grantor: alice, Privs: PrivSelect, Options: PrivSelect}},
			out:  []Grant{{Grantee: bob, Grantor: bob, Privs: all, Options: PrivSelect}},
		},
		{
			name: "others' grants stay",
			acl:  []Grant{{Grantee: Public, Grantor: carol, Privs: PrivSelect}},
			out:  []Grant{{Grantee: Public, Grantor: carol, Privs: PrivSelect}},
		},
	} {
		if got := NewOwnerACL(tc.acl, alice, bob); !reflect.DeepEqual(got, tc.out) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.out)
		}
	}
}

package ledger

import "testing"

func TestDatabaseOf(t *testing.T) {
	for _, tc := range []struct {
		proc string
		port uint16
		want string
	}{
		{"postgres", 55432, "postgres"},
		{"mysqld", 3307, "mysql"},
		{"", 6379, "redis"},   // not local: its usual port
		{"python3", 5432, ""}, // a local process of another name
		{"", 8080, ""},        // neither
		{"/usr/bin/mongod", 1, "mongodb"},
	} {
		if got := databaseOf(tc.proc, tc.port); got != tc.want {
			t.Errorf("databaseOf(%q, %d) = %q; want %q", tc.proc, tc.port, got, tc.want)
		}
	}
}

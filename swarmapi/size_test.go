package swarmapi

import (
	"strings"
	"testing"
)

func TestSizesAreBounded(t *testing.T) {
	for _, ok := range [][2]int{{1, 1}, {24, 80}, {MaxRows, MaxCols}} {
		if err := CheckSize(ok[0], ok[1]); err != nil {
			t.Errorf("%d rows × %d columns: %v", ok[0], ok[1], err)
		}
	}
	for _, bad := range [][2]int{{0, 80}, {24, -1}, {MaxRows + 1, 80}, {24, MaxCols + 1}, {65535, 65535}} {
		err := CheckSize(bad[0], bad[1])
		if err == nil || !strings.Contains(err.Error(), "1 to 1000 columns and 1 to 500 rows") {
			t.Errorf("%d rows × %d columns: %v", bad[0], bad[1], err)
		}
	}
}

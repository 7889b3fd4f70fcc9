package ui

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

func TestRunWithoutDisplayFailsAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display check is for Linux")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	eng := &fakeEngine{}
	if err := Run(context.Background(), eng, RunOptions{}, nil); !errors.Is(err, ErrNoDisplay) {
		t.Fatalf("Run without a display = %v, want ErrNoDisplay", err)
	}
	assertCalls(t, eng)
	assertSettings(t, eng, nil)
}

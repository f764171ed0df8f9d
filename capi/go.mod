module github.com/tilegpu/tilegpu/capi

go 1.26.0

require github.com/tilegpu/tilegpu v0.0.0

require golang.org/x/sys v0.50.0 // indirect

replace github.com/tilegpu/tilegpu => ..

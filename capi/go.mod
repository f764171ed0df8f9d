module github.com/tilegpu/tilegpu/capi

go 1.26

require github.com/tilegpu/tilegpu v0.0.0

replace github.com/tilegpu/tilegpu => ..

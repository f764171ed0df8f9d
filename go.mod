module github.com/tilegpu/tilegpu

go 1.26

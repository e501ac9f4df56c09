func main() {
	if ok {
		run()
		report()
	}
}

func main() {
	if ok {
		if again {
			run()
		}
	}
}

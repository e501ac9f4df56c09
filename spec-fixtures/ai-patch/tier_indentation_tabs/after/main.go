func main() {
	if ok {
		log.Println("done")
		return
	}
}

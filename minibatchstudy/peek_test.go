package minibatchstudy
import ("testing";"fmt";"time";"github.com/fresgld/fresgld/exchange")
func TestPeekWT(t *testing.T){
 pr,err:=WellingTehProblem(Full); if err!=nil{t.Fatal(err)}
 fmt.Printf("%+v\n",pr.Setting)
 for _,m:=range exchange.Methods{ t0:=time.Now()
  r,err:=Run(pr,m,1); if err!=nil{t.Fatal(err)}
  fmt.Println(m,time.Since(t0),r.Steps,r.Cost,r.HotCost,r.SwapAttempts,r.SwapAccepts,r.ClampedCold,r.ClampedHot,r.HotN,r.HotNLo,r.HotNHi,r.AutoBelow,r.AutoAbove)
  fmt.Println(r.Score)
 }
}
